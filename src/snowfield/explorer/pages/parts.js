// Pieces several pages share: the pager of keyset-paged lists and tabs.

import { html } from "../fmt.js";

/** "First page" and "Next" links; the page token travels in the route's query. */
export function pager(base, query, nextToken) {
  const keep = { ...query };
  delete keep.page;
  const link = (extra) => {
    const params = new URLSearchParams({ ...keep, ...extra }).toString();
    return params ? `${base}?${params}` : base;
  };
  const first = query.page ? html`<a href="${link({})}" data-k="first-page">First page</a>` : html`<span>First page</span>`;
  const next = nextToken ? html`<a href="${link({ page: nextToken })}" data-k="next-page">Next ›</a>` : html`<span>Next ›</span>`;
  return html`<nav class="pager">${first}${next}</nav>`;
}

export function tabs(base, tabsList, active) {
  return html`<nav class="tabs">${tabsList.map(([key, label]) =>
    html`<a href="${base}?tab=${key}" data-tab="${key}" class="${key === active ? "on" : ""}">${label}</a>`)}</nav>`;
}
