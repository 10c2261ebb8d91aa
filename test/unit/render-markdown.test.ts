import { expect } from "chai";
import { readFileSync } from "node:fs";
import { renderRaw } from "../../src/render/message-engine.js";
import { renderMessage } from "../../src/render/message.js";
import { fakeRenderContext } from "../helpers/render-context.js";

/**
 * Markdown tested from data, like Zulip's markdown_test_cases.json. Cases named after
 * Zulip's fixtures use its input and expected HTML; where chatd differs on purpose the
 * case keeps Zulip's output in `zulip_expected_output` and says why in `deviation`.
 */
interface MarkdownCase {
  name: string;
  input: string;
  expected_output: string;
  zulip_expected_output?: string;
  deviation?: string;
  note?: string;
}

const { cases } = JSON.parse(
  readFileSync(new URL("../../../test/render/cases.json", import.meta.url), "utf8"),
) as { cases: MarkdownCase[] };

describe("render: Markdown cases (test/render/cases.json)", function () {
  const ctx = fakeRenderContext();

  for (const c of cases) {
    it(c.name, function () {
      const raw = renderRaw(c.input, ctx).html;
      expect(raw).to.equal(c.expected_output);
      // The sanitizer is defence in depth: it must leave the renderer's own output alone.
      expect(renderMessage(c.input, ctx).html).to.equal(raw);
    });
  }

  it("every case has a unique name", function () {
    const names = cases.map((c) => c.name);
    expect(new Set(names).size).to.equal(names.length);
  });

  it("every difference from Zulip's expected output is explained", function () {
    for (const c of cases) {
      if (c.zulip_expected_output === undefined) {
        expect(c.deviation, c.name).to.equal(undefined);
        continue;
      }
      expect(c.deviation, c.name).to.be.a("string").and.not.equal("");
      expect(c.zulip_expected_output, c.name).to.not.equal(c.expected_output);
    }
  });
});
