import { expect } from "chai";
import { apiPath, viaSession } from "../../src/http/prefixes.js";

describe("the API's two prefixes", function () {
  it("/api/v1/... and /json/... name the same route; other paths none", function () {
    expect(apiPath("/api/v1/users/me")).to.equal("/users/me");
    expect(apiPath("/json/users/me")).to.equal("/users/me");
    expect(apiPath("/json")).to.equal("");
    for (const path of ["/jsonx/users/me", "/api/v10/users", "/", "/user_uploads/1/a/b", "/static/json"]) {
      expect(apiPath(path), path).to.equal(null);
    }
  });

  it("only /json and what lies under it is the web client's (session) API", function () {
    expect(viaSession("/json/users/me")).to.equal(true);
    expect(viaSession("/json")).to.equal(true);
    for (const path of ["/jsonx", "/json.txt", "/api/v1/users/me", "/api/v1/json/x", "/"]) {
      expect(viaSession(path), path).to.equal(false);
    }
  });
});
