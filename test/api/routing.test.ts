import { readFileSync } from "node:fs";
import { expect } from "chai";
import { ENDPOINTS } from "../../src/api/index.js";
import type { RouteEntry } from "../../src/http/endpoint.js";
import { Router } from "../../src/http/router.js";
import { expectError } from "../helpers/client.js";
import type { TestRealm } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** Zulip's documented (method, path template) pairs, e.g. ["GET", "/users/{user_id}"]. */
const DOCUMENTED: Array<[string, string]> = readFileSync(
  new URL("../../../test/api/zulip-openapi-paths.txt", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((line) => line !== "" && !line.startsWith("#"))
  .map((line) => line.split(" ") as [string, string]);

/** A template's shape: static segments as they are, every parameter as "{}". */
const shape = (template: string) =>
  template
    .split("/")
    .map((s) => (/^[:*]|^\{.*\}$/.test(s) ? "{}" : s))
    .join("/");

/** chatd's endpoint for a documented pair: same method, same shape (parameter names aside). */
const servedBy = (method: string, template: string): RouteEntry | undefined =>
  ENDPOINTS.find((e) => e.method === method && shape(e.path) === shape(template));

/** A concrete path for a template, with plausible values (a fragment has slashes). */
function samplePath(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "fragment") return "narrow/is/starred";
    if (name === "email") return "hamlet@zulip.test";
    if (name === "emoji_name") return "green_tick";
    if (name === "filename") return "file.txt";
    return "1";
  });
}

describe("routing", function () {
  const router = new Router(ENDPOINTS);

  it("reads Zulip's documented paths", function () {
    expect(DOCUMENTED.length).to.be.greaterThan(100);
    expect(DOCUMENTED).to.deep.include(["GET", "/messages/{message_id}"]);
  });

  it("routes every documented path chatd serves to its own handler", function () {
    const served = DOCUMENTED.filter(([method, template]) => servedBy(method, template));
    expect(served.length).to.be.greaterThan(60);
    for (const [method, template] of served) {
      const found = router.resolve(method, samplePath(template));
      const label = `${method} ${template}`;
      expect(found.kind, label).to.equal("endpoint");
      if (found.kind === "endpoint") expect(found.endpoint, label).to.equal(servedBy(method, template));
    }
  });

  it("never hands a documented path to another path's handler; 405 only where the path exists", function () {
    for (const [method, template] of DOCUMENTED) {
      if (servedBy(method, template)) continue;
      const found = router.resolve(method, samplePath(template));
      const label = `${method} ${template}`;
      expect(found.kind, label).not.to.equal("endpoint");
      if (found.kind === "method_not_allowed") {
        const sameShape = ENDPOINTS.filter((e) => shape(e.path) === shape(template));
        expect(sameShape, label).not.to.deep.equal([]);
        expect(found.allowed, label).to.have.members([...new Set(sameShape.map((e) => e.method))]);
      }
    }
  });

  it("prefers static segments over parameters, per method", function () {
    const at = (method: string, path: string) => {
      const found = router.resolve(method, path);
      return found.kind === "endpoint" ? found.endpoint.path : found.kind;
    };
    expect(at("GET", "/messages/matches_narrow")).to.equal("/messages/matches_narrow");
    expect(at("GET", "/messages/12")).to.equal("/messages/:message_id");
    expect(at("POST", "/messages/render")).to.equal("/messages/render");
    expect(at("GET", "/messages/render")).to.equal("method_not_allowed");
    expect(at("PATCH", "/messages/render")).to.equal("method_not_allowed");
    expect(at("POST", "/users/me/status")).to.equal("/users/me/status");
    expect(at("GET", "/users/me/status")).to.equal("method_not_allowed");
    expect(at("GET", "/users/12/status")).to.equal("/users/:user_id/status");
    expect(at("GET", "/users/me")).to.equal("/users/me");
    expect(at("GET", "/users/iago@zulip.test")).to.equal("/users/:user_id_or_email");
    expect(at("DELETE", "/users/12")).to.equal("/users/:user_id");
    // A handler still names a malformed ID when no other template owns the path.
    expect(at("GET", "/users/hamlet/status")).to.equal("/users/:user_id/status");
    expect(at("PATCH", "/users/me/no_such_thing/x")).to.equal("not_found");
    expect(at("GET", "/navigation_views/narrow/is/starred")).to.equal("method_not_allowed");
    expect(at("PATCH", "/navigation_views/narrow/is/starred")).to.equal("/navigation_views/*fragment");
    expect(at("HEAD", "/server_settings")).to.equal("/server_settings");
    expect(at("GET", "/users/me/")).to.equal("/users/me");
  });

  describe("over HTTP", function () {
    let server: TestServer;
    let realm: TestRealm;
    before(async function () {
      server = await startTestServer();
      realm = await server.factory.realm();
    });
    after(async function () {
      await server.close();
    });

    it("serves no documented path chatd serves with 404 Not Found or 405", async function () {
      for (const [method, template] of DOCUMENTED) {
        if (!servedBy(method, template)) continue;
        // Unauthenticated: authenticated endpoints stop at 401, after routing, changing nothing.
        const res = await server.anonymous.request(method, samplePath(template));
        const label = `${method} ${template}: ${JSON.stringify(res.body)}`;
        expect(res.status, label).not.to.equal(405);
        expect(res.body, label).not.to.include({ msg: "Not Found" });
      }
    });

    it("answers 405 with the path's methods, and 404 for a path no template owns", async function () {
      const hamlet = realm.users.hamlet!.client;
      const res = await hamlet.get("/users/me/status");
      expect(res.status).to.equal(405);
      expect(res.headers.get("allow")).to.equal("POST");
      expect(res.body).to.deep.equal({
        result: "error",
        msg: "Method Not Allowed",
        code: "BAD_REQUEST",
        allowed_methods: ["POST"],
      });
      expectError(await hamlet.request("PATCH", "/users/me/subscriptions/no_such_thing"), 404, "Not Found");
      expectError(await hamlet.post("/messages/12/no_such_thing"), 404, "Not Found");
      expectError(await hamlet.get("/users/hamlet/status"), 400, "Invalid user_id");
      const render = await hamlet.get("/messages/render");
      expect(render.status).to.equal(405);
      expect(render.body).to.include({ msg: "Method Not Allowed" });
      expect(render.body.allowed_methods).to.deep.equal(["POST"]);
    });
  });
});
