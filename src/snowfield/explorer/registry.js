// The page registry: each page module registers its route pattern; the router asks `resolve`.
// A new page (validators, subnets, ICM messages …) is one module that calls `register`.

const pages = [];

/**
 * pattern: "/chain/:chain/block/:id"; page: { nav?: string, title(params): string,
 * render(view, ctx, params, query): Promise<void> }.
 */
export function register(pattern, page) {
  const keys = [];
  const source = pattern.replace(/:(\w+)/g, (_, key) => { keys.push(key); return "([^/]+)"; });
  page.name = page.name || pattern;
  pages.push({ pattern: new RegExp(`^${source}$`), keys, page });
}

export function resolve(path) {
  for (const { pattern, keys, page } of pages) {
    const hit = pattern.exec(path);
    if (hit) {
      const params = Object.fromEntries(keys.map((key, i) => [key, decodeURIComponent(hit[i + 1])]));
      return { page, params };
    }
  }
  return null;
}

/** Search resolvers in order: each gets the query and returns a route ("#/...") or null. */
const searches = [];
export function registerSearch(resolver) { searches.push(resolver); }
export async function search(text, ctx) {
  for (const resolver of searches) {
    const route = await resolver(text, ctx);
    if (route) return route;
  }
  return null;
}
