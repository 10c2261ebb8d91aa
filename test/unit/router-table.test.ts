import { expect } from "chai";
import { ENDPOINTS } from "../../src/api/index.js";
import { Router } from "../../src/http/router.js";

// Paths without parameters are resolved from a table built at start (http/router.ts);
// the same path with a trailing slash takes the general walk. Both must agree.
describe("router: the table of paths without parameters", function () {
  const router = new Router(ENDPOINTS);
  const methods = ["GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"];
  const staticPaths = [...new Set(ENDPOINTS.map((e) => e.path).filter((path) => !/\/[:*]/.test(path)))];

  it("answers every method of every such path as the walk does", function () {
    expect(staticPaths.length).to.be.above(50);
    for (const path of staticPaths) {
      for (const method of methods) {
        expect(router.resolve(method, path), `${method} ${path}`).to.deep.equal(
          router.resolve(method, `${path}/`),
        );
      }
    }
  });

  it("shares its answers frozen, so no request can change the next one's", function () {
    const found = router.resolve("GET", "/users/me");
    expect(found.kind).to.equal("endpoint");
    expect(Object.isFrozen(found)).to.equal(true);
    if (found.kind === "endpoint") expect(Object.isFrozen(found.params)).to.equal(true);
    expect(router.resolve("GET", "/users/me")).to.equal(found);
  });
});
