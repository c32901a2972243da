// A hand-written SVG line chart: one path however many points (2,160 and more), axes with a
// few ticks, and a hover cursor found by binary search. Redrawn when its box changes size.

const NS = "http://www.w3.org/2000/svg";
const PAD = { left: 52, right: 10, top: 10, bottom: 22 };

function el(name, attrs = {}, text) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function niceMax(value) {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((s) => s * power >= value);
  return step * power;
}

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 2 });

/** An axis value with just enough decimals to tell ticks `step` apart. */
function tick(value, step) {
  if (step >= 1 || value === 0) return compact.format(value);
  return value.toFixed(Math.min(8, Math.ceil(-Math.log10(step)) + 1));
}

function timeLabel(seconds, span) {
  const d = new Date(seconds * 1000);
  const iso = d.toISOString();
  if (span <= 2 * 86400) return iso.slice(11, 16);
  if (span <= 400 * 86400) return iso.slice(5, 10);
  return iso.slice(0, 7);
}

/**
 * Draws `points` ([{timestamp, value}], oldest first) into `box`.
 * options: { format(value) → text for the tooltip, domain: [from, to] seconds to span at
 * least (so a young series sits at the right end of its window) }.
 */
export function lineChart(box, points, options = {}) {
  const format = options.format || ((v) => compact.format(v));
  box.classList.add("chart");
  box.dataset.points = String(points.length);
  if (!points.length) {
    box.innerHTML = `<div class="none">No data in this range</div>`;
    return;
  }
  const draw = () => render(box, points, format, options.domain);
  draw();
  let width = box.clientWidth;
  new ResizeObserver(() => {
    if (Math.abs(box.clientWidth - width) > 2) { width = box.clientWidth; draw(); }
  }).observe(box);
}

function render(box, points, format, domain) {
  box.replaceChildren();
  const width = Math.max(box.clientWidth, 280);
  const height = 220;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  const x0 = Math.min(points[0].timestamp, domain ? domain[0] : Infinity);
  const x1 = Math.max(points[points.length - 1].timestamp, domain ? domain[1] : -Infinity);
  const span = Math.max(x1 - x0, 1);
  const top = niceMax(Math.max(...points.map((p) => Number(p.value))));
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const sx = (t) => PAD.left + (x1 === x0 ? plotW / 2 : ((t - x0) / span) * plotW);
  const sy = (v) => PAD.top + plotH - (Number(v) / top) * plotH;
  for (let i = 0; i <= 4; i++) {
    const y = PAD.top + (plotH * i) / 4;
    svg.append(el("line", { class: "grid-line", x1: PAD.left, x2: width - PAD.right, y1: y, y2: y }));
    svg.append(el("text", { class: "axis", x: PAD.left - 6, y: y + 3.5, "text-anchor": "end" }, tick(top * (1 - i / 4), top / 4)));
  }
  const ticks = x1 === x0 ? 1 : 6;
  for (let i = 0; i < ticks; i++) {
    const t = ticks === 1 ? x0 : x0 + (span * i) / (ticks - 1);
    svg.append(el("text", { class: "axis", x: sx(t), y: height - 5, "text-anchor": i === 0 ? "start" : i === ticks - 1 ? "end" : "middle" }, timeLabel(t, span)));
  }
  let d = "";
  for (const p of points) d += `${d ? "L" : "M"}${sx(p.timestamp).toFixed(1)},${sy(p.value).toFixed(1)}`;
  if (points.length === 1) d += `h0.1`;
  const base = PAD.top + plotH;
  const last = points[points.length - 1].timestamp;
  svg.append(el("path", { class: "area", d: `${d}L${sx(last).toFixed(1)},${base}L${sx(points[0].timestamp).toFixed(1)},${base}Z` }));
  svg.append(el("path", { class: "line", d }));
  if (points.length === 1) svg.append(el("circle", { cx: sx(last), cy: sy(points[0].value), r: 3.5, fill: "var(--accent)" }));
  const cursor = el("line", { class: "cursor", y1: PAD.top, y2: base, visibility: "hidden" });
  const dot = el("circle", { r: 3.5, fill: "var(--accent)", visibility: "hidden" });
  svg.append(cursor, dot);
  const tip = document.createElement("div");
  tip.className = "tip";
  tip.hidden = true;
  box.append(svg, tip);
  const times = points.map((p) => p.timestamp);
  svg.addEventListener("pointermove", (event) => {
    const rect = svg.getBoundingClientRect();
    const t = x0 + ((event.clientX - rect.left) * (width / rect.width) - PAD.left) / plotW * span;
    const i = nearest(times, t);
    const p = points[i];
    const x = sx(p.timestamp);
    cursor.setAttribute("x1", x); cursor.setAttribute("x2", x); cursor.setAttribute("visibility", "visible");
    dot.setAttribute("cx", x); dot.setAttribute("cy", sy(p.value)); dot.setAttribute("visibility", "visible");
    tip.hidden = false;
    tip.textContent = `${new Date(p.timestamp * 1000).toISOString().slice(0, 16).replace("T", " ")} · ${format(p.value)}`;
    const left = (x / width) * rect.width;
    tip.style.left = `${Math.min(Math.max(left - tip.offsetWidth / 2, 0), rect.width - tip.offsetWidth)}px`;
    tip.style.top = "0px";
  });
  svg.addEventListener("pointerleave", () => {
    tip.hidden = true;
    cursor.setAttribute("visibility", "hidden");
    dot.setAttribute("visibility", "hidden");
  });
}

function nearest(sorted, t) {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t) lo = mid + 1; else hi = mid;
  }
  return lo > 0 && t - sorted[lo - 1] < sorted[lo] - t ? lo - 1 : lo;
}
