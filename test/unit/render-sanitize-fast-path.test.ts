import { expect } from "chai";
import { renderRaw } from "../../src/render/message-engine.js";
import { renderMessage } from "../../src/render/message.js";
import { passesUnchanged, sanitizeWithAllowList } from "../../src/render/sanitize.js";
import { fakeRenderContext } from "../helpers/render-context.js";

/**
 * The sanitizer skips sanitize-html for HTML it can tell the allow-list keeps as it is
 * (passesUnchanged). These tests hold that shortcut to its promise: whatever it accepts,
 * the full pass gives back byte for byte, and hostile HTML always takes the full pass.
 */

/** Pieces of HTML, harmless and hostile, that the property test strings together. */
const PIECES = [
  "<p>",
  "</p>",
  "<strong>",
  "</strong>",
  "<em>",
  "</em>",
  "<del>",
  "</del>",
  "<code>",
  "</code>",
  "<br>",
  "<br/>",
  "</span>",
  '<span class="user-mention" data-user-id="12">',
  '<span class="user-mention silent" data-user-id="7">',
  '<span class="user-group-mention" data-user-group-id="3">',
  '<span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">',
  '<span class="user-mention evil" data-user-id="12">',
  '<span class="user-mention" data-user-id="12" onmouseover="alert(1)">',
  '<span aria-label="x" class="emoji emoji-1f604" role="img" title="x" style="color:red">',
  '<p onclick="alert(1)">',
  "<script>",
  "</script>",
  '<a href="javascript:alert(1)">',
  "</a>",
  '<img src="x" onerror="alert(1)">',
  "<div>",
  "</div>",
  "<blockquote>",
  "hello",
  " world ",
  "\n",
  "&amp;",
  "&#39;",
  "&",
  "<",
  ">",
  '"quoted"',
  "a & b",
  "&lt;script&gt;",
];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("render: the sanitizer's shortcut", function () {
  it("accepts only HTML that the full pass gives back unchanged (random strings of pieces)", function () {
    const next = random(18);
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const length = 1 + Math.floor(next() * 8);
      let html = "";
      for (let j = 0; j < length; j++) html += PIECES[Math.floor(next() * PIECES.length)];
      if (!passesUnchanged(html)) continue;
      accepted++;
      expect(sanitizeWithAllowList(html), html).to.equal(html);
    }
    // The property is not vacuous: many generated strings took the shortcut.
    expect(accepted).to.be.greaterThan(200);
  });

  it("accepts what the renderer makes of everyday messages, unchanged by the full pass", function () {
    const messages = [
      "hello",
      "hello @**King Hamlet** :smile:",
      "**bold** *italic* ~~gone~~ `code <b>`",
      "line one\nline two\n\nsecond paragraph",
      "@_**Othello|11** fish & chips, 3 < 4 > 2 \"quoted\" 'single'",
      "a :+1: and :thumbs_up: here",
    ];
    for (const content of messages) {
      const { html } = renderRaw(content, fakeRenderContext());
      expect(passesUnchanged(html), html).to.equal(true);
      expect(sanitizeWithAllowList(html), html).to.equal(html);
    }
  });

  it("sends hostile HTML through the full pass", function () {
    const hostile = [
      "<p><script>alert(1)</script></p>",
      '<p onclick="alert(1)">hi</p>',
      '<p><span class="user-mention" data-user-id="1" onmouseover="alert(1)">x</span></p>',
      '<p><span class="user-mention evil" data-user-id="1">x</span></p>',
      '<p><a href="javascript:alert(1)">x</a></p>',
      "<p>a<p>b</p></p>",
      "<p>a</p></p>",
      "<p><strong>x</p></strong>",
      "<strong>outside a paragraph</strong>",
      "<p>unclosed",
      "<p>bare & ampersand</p>",
      "<p>a > b</p>",
      "<p><br/></p>",
    ];
    for (const html of hostile) expect(passesUnchanged(html), html).to.equal(false);
  });

  it("still neutralises raw HTML typed into a message", function () {
    const rendered = renderMessage(
      '<script>alert(1)</script> <img src=x onerror="alert(1)"> [x](javascript:alert(1)) @**King Hamlet**',
      fakeRenderContext(),
    );
    // Typed tags stay text: no element but the paragraph, the mention and the link text.
    expect(rendered.html).to.not.match(/<(script|img)|href="javascript/i);
    expect(rendered.html).to.contain("&lt;script&gt;").and.contain("&lt;img src=x");
  });
});
