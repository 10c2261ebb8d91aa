import { expect } from "chai";
import { cast, createChannel, type Cast } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { pendingEvents, register, verifyRegisterParity } from "../helpers/events.js";
import type { TestUser } from "../helpers/factories.js";
import { sendToChannel } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

type Linkifier = { pattern: string; url_template: string; id: number };

const WITH_TEMPLATES = { client_capabilities: JSON.stringify({ linkifier_url_template: true }) };

describe("linkifiers: /realm/linkifiers and /realm/filters", function () {
  let server: TestServer;
  let u: Cast;

  before(async function () {
    server = await startTestServer();
    u = cast(await server.factory.realm());
    await createChannel(u.hamlet, "Denmark", [u.hamlet, u.othello]);
  });
  after(async function () {
    await server.close();
  });

  const list = async (user: TestUser = u.hamlet) =>
    expectSuccess(await user.client.get("/realm/linkifiers")).linkifiers as Linkifier[];
  const add = (user: TestUser, pattern: string, url_template: string) =>
    user.client.post("/realm/filters", { pattern, url_template });
  const addOk = async (pattern: string, url_template: string) =>
    expectSuccess(await add(u.iago, pattern, url_template)).id as number;

  it("adds linkifiers in order; everyone reads them; register and events only with linkifier_url_template (parity)", async function () {
    const legacy = await register(u.othello.client);
    let id = 0;
    await verifyRegisterParity(u.hamlet.client, WITH_TEMPLATES, async () => {
      id = await addOk("#(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}");
    });
    await verifyRegisterParity(u.hamlet.client, {}, async () => {
      await addOk("RT:(?P<id>[0-9]+)", "https://rt.example.com/ticket/{id}");
    });
    const linkifiers = await list();
    expect(linkifiers.map((l) => l.pattern)).to.deep.equal(["#(?P<id>[0-9]+)", "RT:(?P<id>[0-9]+)"]);
    expect(linkifiers[0]).to.deep.equal({
      pattern: "#(?P<id>[0-9]+)",
      url_template: "https://github.com/zulip/zulip/issues/{id}",
      id,
    });
    const withTemplates = await register(u.hamlet.client, WITH_TEMPLATES);
    expect(withTemplates.realm_linkifiers).to.deep.equal(linkifiers);
    expect(withTemplates.realm_filters).to.deep.equal([]);
    expect((await register(u.hamlet.client)).realm_linkifiers).to.deep.equal([]);
    const events = await pendingEvents(u.othello.client, legacy.queue_id as string);
    expect(events.filter((e) => e.type === "realm_linkifiers")).to.deep.equal([]);
  });

  it("renders linkifiers in message content and topic_links, not inside code or links", async function () {
    const id = await sendToChannel(
      u.hamlet,
      "Denmark",
      "bug #12",
      "see #123 and RT:45, not `#9` nor [#7](https://example.com), nor a#1",
    );
    const message = expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as {
      content: string;
      topic_links: unknown;
    };
    expect(message.content).to.equal(
      '<p>see <a href="https://github.com/zulip/zulip/issues/123">#123</a> and ' +
        '<a href="https://rt.example.com/ticket/45">RT:45</a>, not <code>#9</code> nor ' +
        '<a href="https://example.com">#7</a>, nor a#1</p>',
    );
    expect(message.topic_links).to.deep.equal([
      { url: "https://github.com/zulip/zulip/issues/12", text: "#12" },
    ]);
  });

  it("validates the pattern and the URL template as Zulip does; nothing is added", async function () {
    const before = await list();
    const cases: Array<[string, string, string]> = [
      ["(?P<id>[0-9]+", "https://x/{id}", "Bad regular expression: missing ): (?P<id>[0-9]+"],
      ["ZUL-(?P<id>\\d????)", "https://x/{id}", "Bad regular expression: bad repetition operator: ????"],
      ["(?=a)(?P<id>b)", "https://x/{id}", "Bad regular expression: invalid perl operator: (?="],
      ["(?!a)(?P<id>b)", "https://x/{id}", "Bad regular expression: invalid perl operator: (?!"],
      [
        "(?<=a)(?P<id>b)",
        "https://x/{id}",
        "Bad regular expression: invalid named capture group: (?<=a)(?P<id>",
      ],
      ["(?P<id>a)\\1", "https://x/{id}", "Bad regular expression: invalid escape sequence: \\1"],
      ["(?P<id>a)\\k<id>", "https://x/{id}", "Bad regular expression: invalid escape sequence: \\k"],
      ["(?P<id>[z-a])", "https://x/{id}", "Bad regular expression: invalid character class range: z-a"],
      ["", "https://x/{id}", "This field cannot be blank."],
      ["(?P<id>[0-9]+)", "", "This field cannot be blank."],
      ["(?P<id>[0-9]+)", "https://x/{id", "Invalid URL template."],
      ["(?P<id>[0-9]+)", "https://x/ {id}", "Invalid URL template."],
      [
        "(?P<id>[0-9]+)",
        "https://x/{id}/{name}",
        "Group 'name' in URL template is not present in linkifier pattern.",
      ],
      [
        "(?P<id>[0-9]+)-(?P<org>[a-z]+)",
        "https://x/{id}",
        "Group 'org' in linkifier pattern is not present in URL template.",
      ],
      ["#(?P<id>[0-9]+)", "https://other/{id}", "Realm filter with this Realm and Pattern already exists."],
    ];
    for (const [pattern, template, message] of cases) {
      const res = await add(u.iago, pattern, template);
      expect(res.status, pattern).to.equal(400);
      expect(String(res.body.msg), `${pattern} ${template}`).to.equal(message);
      expect(res.body.errors, pattern).to.be.an("object");
    }
    expect(await list()).to.deep.equal(before);
  });

  it("refuses non-administrators on every change; nothing changes", async function () {
    const before = await list();
    const id = before[0]!.id;
    const admin = "Must be an organization administrator";
    const code = "UNAUTHORIZED_PRINCIPAL";
    expectError(await add(u.hamlet, "X(?P<id>[0-9]+)", "https://x/{id}"), 400, admin, code);
    expectError(await add(u.prospero, "X(?P<id>[0-9]+)", "https://x/{id}"), 400, admin, code);
    expectError(
      await u.hamlet.client.patch(`/realm/filters/${id}`, {
        pattern: "Y(?P<id>\\d+)",
        url_template: "https://y/{id}",
      }),
      400,
      admin,
      code,
    );
    expectError(await u.hamlet.client.delete(`/realm/filters/${id}`), 400, admin, code);
    expectError(
      await u.hamlet.client.patch("/realm/linkifiers", {
        ordered_linkifier_ids: JSON.stringify(before.map((l) => l.id).reverse()),
      }),
      400,
      admin,
      code,
    );
    expect(await list()).to.deep.equal(before);
  });

  it("updates, reorders and removes, telling clients each time (register parity)", async function () {
    const [first, second] = (await list()).map((l) => l.id);
    await verifyRegisterParity(u.hamlet.client, WITH_TEMPLATES, async () => {
      expectSuccess(
        await u.iago.client.patch(`/realm/filters/${first}`, {
          pattern: "GH-(?P<num>[0-9]+)",
          url_template: "https://github.com/zulip/zulip/pull/{num}",
        }),
      );
    });
    expect((await list())[0]).to.deep.equal({
      pattern: "GH-(?P<num>[0-9]+)",
      url_template: "https://github.com/zulip/zulip/pull/{num}",
      id: first,
    });
    await verifyRegisterParity(u.hamlet.client, WITH_TEMPLATES, async () => {
      expectSuccess(
        await u.iago.client.patch("/realm/linkifiers", {
          ordered_linkifier_ids: JSON.stringify([second, first]),
        }),
      );
    });
    expect((await list()).map((l) => l.id)).to.deep.equal([second, first]);
    expectError(
      await u.iago.client.patch("/realm/linkifiers", {
        ordered_linkifier_ids: JSON.stringify([second, second]),
      }),
      400,
      "The ordered list must not contain duplicated linkifiers",
    );
    expectError(
      await u.iago.client.patch("/realm/linkifiers", { ordered_linkifier_ids: JSON.stringify([second]) }),
      400,
      "The ordered list must enumerate all existing linkifiers exactly once",
    );
    expectError(
      await u.iago.client.patch("/realm/filters/999999", {
        pattern: "Z(?P<id>\\d+)",
        url_template: "https://z/{id}",
      }),
      400,
      "Linkifier not found.",
    );
    expectError(await u.iago.client.delete("/realm/filters/999999"), 400, "Linkifier not found.");
    await verifyRegisterParity(u.hamlet.client, WITH_TEMPLATES, async () => {
      expectSuccess(await u.iago.client.delete(`/realm/filters/${second}`));
    });
    expect((await list()).map((l) => l.id)).to.deep.equal([first]);
  });

  it("applies an earlier linkifier first, expands RFC 6570 operators, and stays fast on hostile input", async function () {
    await addOk("(?P<word>[a-z]+)-(?P<n>[0-9]+)", "https://w.example/{word}{?n}");
    const hostile = `${"a".repeat(5000)}!`;
    const started = Date.now();
    const id = await sendToChannel(u.hamlet, "Denmark", "t", `GH-5 and ab-7 ${hostile}`);
    expect(Date.now() - started).to.be.below(2000);
    const message = expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as {
      content: string;
    };
    expect(message.content).to.contain('<a href="https://github.com/zulip/zulip/pull/5">GH-5</a>');
    expect(message.content).to.contain('<a href="https://w.example/ab?n=7">ab-7</a>');
  });

  it("matches with RE2 as Zulip does: a pattern that backtracks catastrophically elsewhere renders at once", async function () {
    await addOk("(?P<id>(a+)+)b", "https://a.example/{id}");
    // Runs of a's with no b: a backtracking engine tries 2^4900 ways before failing.
    const hostile = "a".repeat(4900);
    const id = await sendToChannel(u.hamlet, "Denmark", "re2", `${hostile} aaab and ${hostile}!`);
    const message = expectSuccess(await u.othello.client.get(`/messages/${id}`)).message as {
      content: string;
    };
    expect(message.content).to.equal(
      `<p>${hostile} <a href="https://a.example/aaa">aaab</a> and ${hostile}!</p>`,
    );
    // Topics too, and RE2's own syntax ((?i) flags) is understood.
    await addOk("(?i)ticket:(?P<id>\\d+)", "https://t.example/{id}");
    const topicId = await sendToChannel(u.hamlet, "Denmark", `${"a".repeat(50)} TICKET:9`, "x");
    const topic = expectSuccess(await u.othello.client.get(`/messages/${topicId}`)).message as {
      topic_links: unknown;
    };
    expect(topic.topic_links).to.deep.equal([{ url: "https://t.example/9", text: "TICKET:9" }]);
  });
});
