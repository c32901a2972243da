// Clients of the three public interfaces the explorer reads: the data API, the metrics API and
// the node's JSON-RPC. Failures become ApiError with a kind a page can explain to people.

export class ApiError extends Error {
  /** kind: notfound | unserved | ratelimited | invalid | denied | unavailable | server | rpc */
  constructor(kind, message, { status = 0, retryAfter = null, url = "" } = {}) {
    super(message);
    this.kind = kind;
    this.status = status;
    this.retryAfter = retryAfter;
    this.url = url;
  }
}

const KINDS = { 400: "invalid", 401: "denied", 403: "denied", 404: "notfound", 429: "ratelimited" };
// An unknown route answers the bare reason phrase; a missing block or address says what it missed.
const UNSERVED = ["no such route", "Not Found", "Cannot GET"];
// A deployment that indexes no primary network serves none of its operations.
const UNINDEXED = /^network \S+ is not indexed$/;

function kindOf(status, message) {
  if (status === 404 && (UNSERVED.some((m) => message.startsWith(m)) || UNINDEXED.test(message))) return "unserved";
  return KINDS[status] || (status >= 500 ? (status === 503 || status === 502 ? "unavailable" : "server") : "invalid");
}

function origin(url) {
  try { return new URL(url, location.href).host; } catch { return url; }
}

const TIMEOUT_MS = 15000;

async function request(url, init = {}, service = "the data API") {
  let response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new ApiError("unavailable", `${service} at ${origin(url)} did not answer (${err.name === "TimeoutError" ? "timed out" : "unreachable"})`, { url });
  }
  let body = null;
  try { body = await response.json(); } catch { body = null; }
  if (!response.ok) {
    const message = body && body.message ? [].concat(body.message).join("; ") : response.statusText || `HTTP ${response.status}`;
    throw new ApiError(kindOf(response.status, message), message, {
      status: response.status, retryAfter: response.headers.get("retry-after"), url,
    });
  }
  if (body === null) throw new ApiError("server", `${service} at ${origin(url)} answered something other than JSON`, { url });
  return body;
}

const query = (params = {}) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "");
  return entries.length ? "?" + new URLSearchParams(entries).toString() : "";
};

export class Api {
  constructor(config) {
    this.config = config;
    this.dataBase = (config.dataApi || "").replace(/\/$/, "");
    this.metricsBase = (config.metricsApi || "").replace(/\/$/, "");
    this.headers = config.apiKey ? { "x-service-api-key": config.apiKey } : {};
    this.rpcUrls = new Map(); // chainId → JSON-RPC URL
    this.cache = new Map();
  }

  /** GET a data API path; `params` become the query string. */
  data(path, params) {
    return request(this.dataBase + path + query(params), { headers: this.headers });
  }

  /** The same answer for the life of the page (chains, contract metadata). */
  cached(path, params) {
    const key = path + query(params);
    if (!this.cache.has(key)) {
      const pending = this.data(path, params);
      this.cache.set(key, pending);
      pending.catch((err) => { if (err.kind !== "notfound") this.cache.delete(key); });
    }
    return this.cache.get(key);
  }

  /** Contract metadata (operation 4), or null for an address that is not a known contract. */
  async contract(chain, address) {
    try {
      return await this.cached(`/v1/chains/${chain}/addresses/${address}`);
    } catch (err) {
      if (err.kind === "notfound") return null;
      throw err;
    }
  }

  metric(chain, metric, params) {
    // No API key here: the metrics service ignores it, and a custom header costs a preflight.
    return request(`${this.metricsBase}/v2/chains/${chain}/metrics/${metric}` + query(params), {}, "the metrics API");
  }

  /** ICM message counts per bucket (the metrics API's /v2/icm/timeseries), every page up to
   * `maxPages`, oldest first. */
  async icmSeries(params, maxPages = 5) {
    const points = [];
    let token;
    for (let page = 0; page < maxPages; page++) {
      const body = await request(`${this.metricsBase}/v2/icm/timeseries` + query({ pageSize: 2160, ...params, pageToken: token }), {}, "the metrics API");
      points.push(...body.results);
      token = body.nextPageToken;
      if (!token) break;
    }
    return points.reverse();
  }

  /** A staking metric per day (the metrics API's /v2/networks/{network}/metrics/{metric}),
   * oldest first; empty when the store indexes no P-Chain of that network (404). */
  async stakingSeries(network, metric, params, maxPages = 5) {
    const points = [];
    let token;
    try {
      for (let page = 0; page < maxPages; page++) {
        const body = await request(`${this.metricsBase}/v2/networks/${network}/metrics/${metric}` + query({ pageSize: 2160, ...params, pageToken: token }), {}, "the metrics API");
        points.push(...body.results);
        token = body.nextPageToken;
        if (!token) break;
      }
    } catch (err) {
      // No P-Chain index here (404 "network … is not indexed"): the chart has no data.
      if (err.kind === "notfound" || err.kind === "unserved") return [];
      throw err;
    }
    return points.reverse();
  }

  /** The start of the first day with a transaction on `chain` (one request: 2,160 days back at
   * most), or null when it has none. A devnet's genesis can be years before its first block. */
  async firstActivity(chain) {
    const body = await this.metric(chain, "txCount", { timeInterval: "day", pageSize: 2160 });
    const active = body.results.filter((p) => Number(p.value) > 0);
    return active.length ? active[active.length - 1].timestamp : null;
  }

  /** Every page of a metric series, oldest first, up to `maxPages` pages of 2,160 points. */
  async series(chain, metric, params, maxPages = 5) {
    const points = [];
    let token;
    for (let page = 0; page < maxPages; page++) {
      const body = await this.metric(chain, metric, { pageSize: 2160, ...params, pageToken: token });
      points.push(...body.results);
      token = body.nextPageToken;
      if (!token) break;
    }
    return points.reverse();
  }

  rpcUrl(chain) {
    return this.rpcUrls.get(String(chain)) || null;
  }

  /** One JSON-RPC call, or a batch when `calls` is a list of [method, params]. */
  async rpc(chain, method, params = []) {
    const [result] = await this.rpcBatch(chain, [[method, params]]);
    return result;
  }

  async rpcBatch(chain, calls) {
    const url = this.rpcUrl(chain);
    if (!url) throw new ApiError("unserved", "no JSON-RPC endpoint is configured for this chain");
    const body = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
    const replies = await request(url, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
    }, "the node's JSON-RPC");
    const byId = new Map([].concat(replies).map((r) => [r.id, r]));
    return calls.map((_, id) => {
      const reply = byId.get(id);
      if (!reply || reply.error) throw new ApiError("rpc", reply ? reply.error.message : "no reply", { url });
      return reply.result;
    });
  }

  /** Learns which chain the configured node serves; other chains use their listed rpcUrl. */
  async discoverRpc(chains) {
    for (const chain of chains) {
      if (chain.rpcUrl) this.rpcUrls.set(chain.chainId, chain.rpcUrl);
    }
    if (!this.config.rpc) return;
    try {
      const id = await request(this.config.rpc, {
        method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      }, "the node's JSON-RPC");
      this.rpcUrls.set(String(BigInt(id.result)), this.config.rpc);
    } catch {
      // The configured node is down: it stays the node of every chain, and pages say so.
      for (const chain of chains) this.rpcUrls.set(chain.chainId, this.config.rpc);
    }
  }
}
