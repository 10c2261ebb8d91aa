import { expect } from "chai";
import { readFileSync } from "node:fs";
import {
  TABLE_FILE,
  buildEmojiNameTable,
  cleanName,
  emojiCode,
  loadInputs,
  serializeTable,
} from "../../tools/generate-emoji-names.js";

const committed = () =>
  (JSON.parse(readFileSync(TABLE_FILE, "utf8")) as { code_to_names: Record<string, string[]> }).code_to_names;

describe("emoji names: Zulip's table (src/render/emoji-data)", function () {
  it("is exactly what `npm run generate:emoji` makes of the pinned packages", function () {
    expect(readFileSync(TABLE_FILE, "utf8")).to.equal(serializeTable(buildEmojiNameTable(loadInputs())));
  });

  it("has Zulip's names for the emoji its clients offer first", function () {
    const table = committed();
    const codeOf = new Map(Object.entries(table).flatMap(([code, names]) => names.map((n) => [n, code])));
    expect(table["1f44d"]).to.deep.equal(["+1", "thumbs_up", "like"]);
    const expected: Record<string, string> = {
      "+1": "1f44d",
      thumbs_up: "1f44d",
      like: "1f44d",
      cat: "1f408",
      kitten: "1f431",
      dog: "1f415",
      puppy: "1f436",
      calendar: "1f4c5",
      date: "1f4c6",
      smile: "1f604",
      slight_smile: "1f642",
      folded_hands: "1f64f",
      pray: "1f64f",
      heart: "2764",
      tada: "1f389",
      working_on_it: "1f6e0",
      octopus: "1f419",
      flag_türkiye: "1f1f9-1f1f7",
      flag_turkiye: "1f1f9-1f1f7",
    };
    for (const [name, code] of Object.entries(expected)) expect(codeOf.get(name), name).to.equal(code);
    expect(table["1f64f"]![0]).to.equal("folded_hands");
    for (const name of ["thumbsup", "hankey", "skin-tone-2", "man-girl-girl"])
      expect(codeOf.has(name), name).to.equal(false);
  });

  it("has 1883 emoji, each with names (canonical first), each name for one emoji, no U+FE0F", function () {
    const table = committed();
    expect(Object.keys(table)).to.have.lengthOf(1883);
    const seen = new Set<string>();
    for (const [code, names] of Object.entries(table)) {
      expect(code).to.match(/^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$/);
      expect(code.split("-")).to.not.include("fe0f");
      expect(names, code).to.be.an("array").that.is.not.empty;
      for (const name of names) {
        expect(seen.has(name), `${name} twice`).to.equal(false);
        seen.add(name);
      }
    }
    expect(seen.size).to.equal(3338);
  });

  it("derives codes and names as Zulip's generator does", function () {
    expect(emojiCode("2764-FE0F")).to.equal("2764");
    expect(emojiCode("0023-FE0F-20E3")).to.equal("0023-20e3");
    expect(emojiCode("1F3F3-FE0F-200D-26A7-FE0F")).to.equal("1f3f3-200d-26a7");
    expect(cleanName("thumbs up")).to.equal("thumbs_up");
    expect(cleanName("flag: Côte d’Ivoire")).to.equal("flag_côte_divoire");
    expect(cleanName("Japanese “here” button")).to.equal("japanese_here_button");
    expect(cleanName("A & B -- c")).to.equal("a_and_b_c");
  });
});
