import { expect } from "chai";
import { sanitizeMessageHtml } from "../../src/render/sanitize.js";

describe("render: sanitizeMessageHtml", function () {
  it("keeps only allowed tags, attributes, classes and URLs (defence in depth)", function () {
    const cases: Array<[string, string]> = [
      ["<script>alert(1)</script><p>hi</p>", "<p>hi</p>"],
      ['<p onclick="alert(1)" style="color:red">hi</p>', "<p>hi</p>"],
      ['<a href="javascript:alert(1)">x</a>', "<a>x</a>"],
      [
        '<a href="https://ok.example" target="_blank" rel="x" class="stream bogus">x</a>',
        '<a href="https://ok.example" class="stream">x</a>',
      ],
      ['<img src="x.png" onerror="alert(1)">', '<img src="x.png">'],
      ['<img src="data:image/png;base64,AAAA" class="emoji">', '<img class="emoji">'],
      [
        '<span class="emoji emoji-1f604 evil" data-x="1">:smile:</span>',
        '<span class="emoji emoji-1f604">:smile:</span>',
      ],
      [
        '<td style="text-align: left;">a</td><td style="background:url(x)">b</td>',
        '<td style="text-align: left;">a</td><td>b</td>',
      ],
      ['<iframe src="https://example.com"></iframe><style>p{}</style><object></object>', ""],
      ['<svg><a href="javascript:alert(1)">x</a></svg>', "<a>x</a>"],
      ["<br><hr>", "<br><hr>"],
    ];
    for (const [input, expected] of cases) expect(sanitizeMessageHtml(input), input).to.equal(expected);
  });
});
