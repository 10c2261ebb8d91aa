/** Where the API is served: for every client with HTTP Basic, and for the web client by session. */
export const API_PREFIX = "/api/v1";
export const JSON_PREFIX = "/json";

/** Whether `path` is `prefix` or lies under it ("/jsonfoo" is not under "/json"). */
const under = (path: string, prefix: string) =>
  path.startsWith(prefix) && (path.length === prefix.length || path[prefix.length] === "/");

/** The route-table path of an API request ("/users/me"), or null for a path outside both prefixes. */
export function apiPath(path: string): string | null {
  if (under(path, API_PREFIX)) return path.slice(API_PREFIX.length);
  if (under(path, JSON_PREFIX)) return path.slice(JSON_PREFIX.length);
  return null;
}

/** Whether a path is the web client's API (/json/...), authenticated by session. */
export const viaSession = (path: string) => under(path, JSON_PREFIX);
