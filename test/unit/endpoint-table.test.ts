import { expect } from "chai";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ENDPOINTS, loadEndpoints } from "../../src/api/index.js";
import type { Endpoint, RouteEntry } from "../../src/http/endpoint.js";

const API_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src", "api");

/** What the router and the request carriers read from an endpoint before it loads. */
const facts = (e: RouteEntry) => ({
  method: e.method,
  path: e.path,
  auth: e.auth,
  intPathParams: [...e.intPathParams].sort(),
  streamsBody: e.streamsBody,
  answers: e.answer !== undefined,
});

// src/api/index.ts lists every endpoint with the facts routing needs, and loads its module
// on first use: each entry must say what the endpoint it loads says.
describe("endpoint table: each entry matches the endpoint it loads", function () {
  let loaded: Endpoint[];
  before(async function () {
    loaded = await loadEndpoints();
  });

  it("gives every endpoint's method, path, auth, integer path parameters and carriers", function () {
    expect(loaded).to.have.length(ENDPOINTS.length);
    ENDPOINTS.forEach((entry, i) => {
      expect(facts(entry), `${entry.method} ${entry.path}`).to.deep.equal(facts(loaded[i]!));
    });
  });

  it("lists every endpoint the API modules define, each once", async function () {
    const defined = new Set<unknown>();
    for (const file of readdirSync(API_DIR).filter((f) => f.endsWith(".js") && f !== "index.js")) {
      const exports = (await import(pathToFileURL(join(API_DIR, file)).href)) as Record<string, unknown>;
      for (const value of Object.values(exports)) {
        const candidate = value as Partial<Endpoint> | null;
        if (candidate && typeof candidate.run === "function" && typeof candidate.path === "string") {
          defined.add(value);
        }
      }
    }
    expect(new Set(loaded).size).to.equal(loaded.length);
    const missing = [...defined].filter((e) => !loaded.includes(e as Endpoint)) as Endpoint[];
    expect(missing.map((e) => `${e.method} ${e.path}`)).to.deep.equal([]);
  });
});
