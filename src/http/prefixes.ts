/** Where the API is served: for every client with HTTP Basic, and for the web client by session. */
export const API_PREFIX = "/api/v1";
export const JSON_PREFIX = "/json";

/** The route-table path of an API request ("/users/me"), or null for a path outside both prefixes. */
export function apiPath(path: string): string | null {
  if (path.startsWith(API_PREFIX) && (path.length === API_PREFIX.length || path[API_PREFIX.length] === "/")) {
    return path.slice(API_PREFIX.length);
  }
  if (
    path.startsWith(JSON_PREFIX) &&
    (path.length === JSON_PREFIX.length || path[JSON_PREFIX.length] === "/")
  ) {
    return path.slice(JSON_PREFIX.length);
  }
  return null;
}

export const viaSession = (path: string) => path.startsWith(JSON_PREFIX);
