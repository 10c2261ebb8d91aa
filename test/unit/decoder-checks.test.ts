import { expect } from "chai";
import {
  absoluteUrl,
  bool,
  either,
  hexColor,
  int,
  isoDate,
  list,
  map,
  object,
  oneOf,
  optional,
  string,
} from "../helpers/decoder-checks.js";
import { groupSetting, MOBILE_APP_SNAPSHOT } from "../helpers/mobile-app-snapshot.js";

/** The mobile-app register test is only as strict as these checks: they must reject. */
describe("decoder checks (the mobile app's decoding rules)", function () {
  it("rejects missing, null and mistyped required values", function () {
    expect(int(undefined, "k")).to.deep.equal(["k: missing, expected an integer"]);
    expect(int(1.5, "k")).to.have.lengthOf(1);
    expect(string(null, "k")).to.have.lengthOf(1);
    expect(bool(1, "k")).to.have.lengthOf(1);
    expect(int(3, "k")).to.deep.equal([]);
  });

  it("accepts absent and null optional values, but not mistyped ones", function () {
    expect(optional(int)(undefined, "k")).to.deep.equal([]);
    expect(optional(int)(null, "k")).to.deep.equal([]);
    expect(optional(int)("3", "k")).to.have.lengthOf(1);
  });

  it("checks enums, lists, maps and objects to the leaves", function () {
    expect(oneOf(1, 2)(3, "k")).to.have.lengthOf(1);
    expect(list(int)([1, "2"], "k")).to.deep.equal(['k[1]: "2", expected an integer']);
    expect(map(int, { intKeys: true })({ 1: 1, x: 2 }, "k")).to.deep.equal(['k: key "x" is not an integer']);
    expect(object({ a: int, b: optional(int) })({ a: 1, extra: "ignored" }, "k")).to.deep.equal([]);
    expect(object({ a: int })({}, "k")).to.deep.equal(["k.a: missing, expected an integer"]);
    expect(object({ a: int })([], "k")).to.have.lengthOf(1);
  });

  it("checks group settings, URLs, dates and colours in the app's forms", function () {
    expect(either(int, string)("x", "k")).to.deep.equal([]);
    expect(groupSetting(7, "k")).to.deep.equal([]);
    expect(groupSetting({ direct_members: [1], direct_subgroups: [] }, "k")).to.deep.equal([]);
    expect(groupSetting({ direct_member_ids: [1], direct_subgroup_ids: [] }, "k")).to.not.be.empty;
    expect(absoluteUrl("/static/emoji.json", "k")).to.have.lengthOf(1);
    expect(absoluteUrl("https://chat.example/static/emoji.json", "k")).to.deep.equal([]);
    expect(isoDate("2024-01-01T00:00:00+00:00", "k")).to.deep.equal([]);
    expect(isoDate("1704067200", "k")).to.have.lengthOf(1);
    expect(hexColor("#c2c2c2", "k")).to.deep.equal([]);
    expect(hexColor("#C2C2C2", "k")).to.have.lengthOf(1);
  });

  it("requires realm_wildcard_mention_policy, one of the values the app knows", function () {
    const check = MOBILE_APP_SNAPSHOT.realm_wildcard_mention_policy!;
    expect(check(undefined, "k")).to.have.lengthOf(1);
    expect(check(4, "k")).to.have.lengthOf(1);
    expect(check(5, "k")).to.deep.equal([]);
  });

  it("rejects a user status whose complete emoji has an unknown reaction type", function () {
    const check = MOBILE_APP_SNAPSHOT.user_status!;
    const status = (reaction_type: string) => ({
      5: { emoji_name: "x", emoji_code: "1f600", reaction_type },
    });
    expect(check(status("unicode_emoji"), "k")).to.deep.equal([]);
    expect(check(status("custom"), "k")).to.have.lengthOf(1);
    expect(check({ 5: { emoji_name: "", emoji_code: "", reaction_type: "" } }, "k")).to.deep.equal([]);
  });
});
