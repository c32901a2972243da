"""The explorer: a web page over the public data and metrics APIs, shipped as static files
(ES modules, CSS, no build step); the data service serves them (snowfield.api.site)."""
