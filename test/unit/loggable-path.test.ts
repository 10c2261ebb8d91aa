import { expect } from "chai";
import { loggablePath } from "../../src/http/outcome.js";

/** Request paths as the log keeps them: a temporary file URL's token never. */
describe("loggable request paths", function () {
  const TOKEN = "3130302F61622F6E616D652E7478743A313730303030303036303A616263";

  const REDACTED: Array<[string, string]> = [
    [`/user_uploads/temporary/${TOKEN}/name.txt`, "/user_uploads/temporary/[redacted]/name.txt"],
    [`/user_uploads/temporary/${TOKEN}/a%20b.txt`, "/user_uploads/temporary/[redacted]/a%20b.txt"],
    [`/user_uploads/temporary/${TOKEN}`, "/user_uploads/temporary/[redacted]"],
    [`/user_uploads/temporary/${TOKEN}/`, "/user_uploads/temporary/[redacted]"],
    [`/user_uploads/temporary/${TOKEN}/extra/name.txt`, "/user_uploads/temporary/[redacted]/name.txt"],
    [`/user_uploads/temporar%79/${TOKEN}/name.txt`, "/user_uploads/temporary/[redacted]/name.txt"],
    [`/user_upload%73/temporary/${TOKEN}/name.txt`, "/user_uploads/temporary/[redacted]/name.txt"],
    [`//user_uploads//temporary//${TOKEN}/name.txt`, "/user_uploads/temporary/[redacted]/name.txt"],
    [`/user_uploads/temporary/%33%31${TOKEN.slice(2)}/n`, "/user_uploads/temporary/[redacted]/n"],
  ];
  for (const [path, logged] of REDACTED) {
    it(`redacts the token of ${path.slice(0, 40)}`, function () {
      expect(loggablePath(path)).to.equal(logged);
      expect(loggablePath(path)).not.to.include(TOKEN.slice(4));
    });
  }

  it("keeps every other path as it is", function () {
    for (const path of [
      "/",
      "//",
      "/api/v1/users/me",
      "/api/v1/users/a%40b.test",
      "/api/v1/user_uploads/2/ab/cd/name.txt",
      "/user_uploads/2/ab/cd/name.txt",
      "/user_uploads/download/2/ab/cd/temporary",
      "/user_uploads/%E0",
      "/temporary/x/y",
    ]) {
      expect(loggablePath(path), path).to.equal(path);
    }
  });
});
