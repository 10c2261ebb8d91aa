import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Knex } from "knex";
import { testConfig } from "../../src/config.js";
import { createKnex } from "../../src/db/knex.js";
import { migrateLatest } from "../../src/db/migrate.js";
import { indexMessages, reindexMessages, removeFromIndex, whereMatches } from "../../src/db/search-sqlite.js";
import {
  highlightHtml,
  highlightText,
  htmlToText,
  parseSearchQuery,
  toFtsQuery,
} from "../../src/lib/search.js";

describe("full-text search", function () {
  it("parses words and quoted phrases, folding case and accents", function () {
    expect(parseSearchQuery('Café "New York" rocks!').terms).to.deep.equal([
      ["new", "york"],
      ["cafe"],
      ["rocks"],
    ]);
    expect(toFtsQuery(parseSearchQuery('Café "New York"'))).to.equal('"new york" "cafe"');
    // FTS syntax in user input is inert: it is quoted as words.
    expect(toFtsQuery(parseSearchQuery('a OR b* NEAR(c) "'))).to.equal('"a" "or" "b" "near" "c"');
  });

  it("highlights stem matches in text only, never inside tags or entities", function () {
    const search = parseSearchQuery("running link");
    const html =
      '<p>I <strong>ran</strong> while Running to a <a href="https://running.example/link">links</a> &amp; more</p>';
    expect(highlightHtml(html, search)).to.equal(
      '<p>I <strong>ran</strong> while <span class="highlight">Running</span> to a <a href="https://running.example/link"><span class="highlight">links</span></a> &amp; more</p>',
    );
    expect(highlightText("Run <fast>", search)).to.equal('<span class="highlight">Run</span> &lt;fast&gt;');
  });

  it("extracts plain text from rendered HTML", function () {
    expect(htmlToText("<p>Hello <strong>world</strong> &amp; &lt;friends&gt;</p>\n<p>bye</p>")).to.equal(
      "Hello world & <friends> bye",
    );
  });

  for (const driver of ["sqlite3", "better-sqlite3"] as const) {
    describe(`the SQLite FTS5 index (${driver})`, function () {
      let dir: string;
      let knex: Knex;
      before(async function () {
        dir = mkdtempSync(join(tmpdir(), "chatd-search-"));
        knex = createKnex(testConfig(dir, { db_driver: driver }));
        await migrateLatest(knex);
      });
      after(async function () {
        await knex.destroy();
        rmSync(dir, { recursive: true, force: true });
      });

      const search = async (q: string): Promise<number[]> => {
        const query = whereMatches(
          knex.select("rowid as id").from("message_search"),
          "rowid",
          toFtsQuery(parseSearchQuery(q)),
        );
        const rows: Array<{ id: number }> = await query.orderBy("id");
        return rows.map((r) => r.id);
      };

      it("finds messages by stemmed words in content or topic, all terms required", async function () {
        await indexMessages(knex, [
          { id: 1, topic: "deploys", text: "The deployment is running late" },
          { id: 2, topic: "lunch", text: "Who runs to the café?" },
          { id: 3, topic: "lunch", text: "New York pizza" },
        ]);
        expect(await search("run")).to.deep.equal([1, 2]);
        expect(await search("cafe run")).to.deep.equal([2]);
        expect(await search("deploy")).to.deep.equal([1]);
        expect(await search('"york pizza"')).to.deep.equal([3]);
        expect(await search('"pizza york"')).to.deep.equal([]);
        expect(await search("lunch")).to.deep.equal([2, 3]);
      });

      it("follows edits and deletions", async function () {
        await reindexMessages(knex, [{ id: 3, topic: "dinner", text: "Chicago pizza" }]);
        expect(await search("york")).to.deep.equal([]);
        expect(await search("chicago")).to.deep.equal([3]);
        await removeFromIndex(knex, [1, 2]);
        expect(await search("run")).to.deep.equal([]);
      });
    });
  }
});
