// How a failure is told to people: a title and a sentence per kind of ApiError.

import { ApiError } from "./api.js";
import { html } from "./fmt.js";

const TITLES = {
  notfound: "Not found",
  unserved: "Not served by this deployment",
  ratelimited: "Rate limited",
  invalid: "That request was refused",
  denied: "The API key was refused",
  unavailable: "A service is down",
  server: "The service failed",
  rpc: "The node refused the call",
};

export function explain(err) {
  if (!(err instanceof ApiError)) return { title: "Something went wrong", text: String(err && err.message || err) };
  let text = err.message;
  if (err.kind === "ratelimited") {
    text = `Too many requests right now${err.retryAfter ? `: try again in ${err.retryAfter} s` : ""} (the service said: ${err.message}).`;
  } else if (err.kind === "unserved") {
    text = `This deployment does not serve that operation (${err.message}).`;
  }
  return { title: TITLES[err.kind] || "Error", text };
}

/** The error as one section (`part` names it) of a page that still shows the rest. */
export function partError(err, part) {
  const { title, text } = explain(err);
  return html`<div class="panel error part" data-error="${err.kind || "error"}"><h2>${part}: ${title.toLowerCase()}</h2><p>${text}</p></div>`;
}

/** The error as the whole page, or (`part`) as one section of a page that still shows the rest. */
export function showError(target, err, part = "") {
  const { title, text } = explain(err);
  target.innerHTML = String(part
    ? partError(err, part)
    : html`<div class="panel error" data-error="${err.kind || "error"}"><h2>${title}</h2><p>${text}</p>
      <p class="muted"><a href="#/">Back to the overview</a></p></div>`);
}
