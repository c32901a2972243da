"""Prints docs/settings.md: `python -m snowfield.config > docs/settings.md`."""

from snowfield.config import SERVICES
from snowfield.config.docs import settings_doc

print(settings_doc(SERVICES), end="")
