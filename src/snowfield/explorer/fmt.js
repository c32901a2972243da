// Formatting and safe HTML: every interpolated value is escaped unless it is html`` already.

class Html {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escape = (value) => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);

function piece(value) {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join("");
  return escape(value);
}

export function html(strings, ...values) {
  let out = strings[0];
  values.forEach((value, i) => { out += piece(value) + strings[i + 1]; });
  return new Html(out);
}

export const raw = (text) => new Html(text);

/** A URL from data (curated links, logos) as a link target: http(s) only, never javascript:. */
export const safeUrl = (url) => (/^https?:\/\//i.test(url || "") ? url : "#");

const GROUP = new Intl.NumberFormat("en-US");
export const int = (value) => GROUP.format(BigInt(value));

/** A decimal amount from an integer string in base units: 1234500 with 6 decimals → 1.2345. */
export function units(value, decimals = 18, maxFraction = 6) {
  const big = BigInt(value);
  const negative = big < 0n;
  const abs = negative ? -big : big;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  let fraction = (abs % base).toString().padStart(decimals, "0").slice(0, maxFraction).replace(/0+$/, "");
  if (!fraction && abs % base !== 0n && whole === 0n) return (negative ? "-" : "") + "<0." + "0".repeat(maxFraction - 1) + "1";
  return (negative ? "-" : "") + GROUP.format(whole) + (fraction ? "." + fraction : "");
}

export const gwei = (wei) => units(wei, 9, 4) + " gwei";

export function number(value, digits = 2) {
  if (typeof value !== "number") return String(value);
  if (Number.isInteger(value)) return GROUP.format(value);
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export const short = (hex, head = 10, tail = 6) =>
  hex && hex.length > head + tail + 1 ? `${hex.slice(0, head)}…${hex.slice(-tail)}` : hex;

export function ago(seconds) {
  const delta = Math.max(0, Math.floor(Date.now() / 1000 - seconds));
  if (delta < 60) return `${delta}s ago`;
  if (delta < 3600) return `${Math.floor(delta / 60)}m ago`;
  if (delta < 86400) return `${Math.floor(delta / 3600)}h ago`;
  return `${Math.floor(delta / 86400)}d ago`;
}

export const utc = (seconds) => new Date(seconds * 1000).toISOString().replace("T", " ").replace(".000Z", " UTC");

export const when = (seconds) => html`<span title="${utc(seconds)}">${ago(seconds)}</span>`;

export const hexToBig = (hex) => BigInt(hex);
export const hexToNumber = (hex) => Number(BigInt(hex));

/** A link to an address page, showing its token name when the API gave one. */
export function addressLink(chain, party, { full = false } = {}) {
  if (!party || !party.address) return html`<span class="muted">—</span>`;
  const a = party.address;
  const label = party.name ? `${party.name}${party.symbol ? ` (${party.symbol})` : ""}` : full ? a : short(a);
  return html`<a class="mono" href="#/chain/${chain}/address/${a}" title="${a}">${label}</a>`;
}

export const txLink = (chain, hash, full = false) =>
  html`<a class="mono" href="#/chain/${chain}/tx/${hash}" title="${hash}">${full ? hash : short(hash)}</a>`;

export const blockLink = (chain, number) =>
  html`<a href="#/chain/${chain}/block/${number}">${int(number)}</a>`;

export function status(ok) {
  return ok ? html`<span class="badge ok">Success</span>` : html`<span class="badge bad">Failed</span>`;
}

export function methodBadge(method) {
  if (!method) return "";
  const label = method.callType === "NATIVE_TRANSFER" ? "Transfer"
    : method.callType === "CONTRACT_CREATION" ? "Create"
    : (method.methodName || method.methodHash || "").split("(")[0] || method.methodHash;
  return html`<span class="badge method" title="${method.methodName || method.methodHash}">${label}</span>`;
}
