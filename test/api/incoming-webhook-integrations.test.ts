import { expect } from "chai";
import { createBot, type TestBot } from "../helpers/bots.js";
import { createChannel } from "../helpers/channels.js";
import { expectError, expectSuccess } from "../helpers/client.js";
import { messageCount } from "../helpers/message-send.js";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { lastMessage, postWebhook, webhookFixture } from "../helpers/webhooks.js";

/**
 * Each integration's events through the real URL with a bot's key: the topic and content
 * are what Zulip's own tests (zerver/webhooks/<integration>/tests.py) expect for the same
 * fixture.
 */
describe("incoming webhooks: integrations post what Zulip posts", function () {
  let server: TestServer;
  let bot: TestBot;
  let baseline: number;

  before(async function () {
    server = await startTestServer();
    const realm = await server.factory.realm();
    const hamlet = realm.users.hamlet!;
    await createChannel(hamlet, "dev", [hamlet]);
    bot = await createBot(hamlet, "hooks", { bot_type: 2 });
  });
  after(async function () {
    await server.close();
  });
  beforeEach(async function () {
    baseline = await messageCount(server);
  });

  /** Posts a fixture; exactly one message must land in #dev with this topic and content. */
  async function expectFixtureMessage(
    integration: string,
    fixture: string,
    topic: string,
    content: string,
    options: { headers?: Record<string, string>; query?: string; body?: string } = {},
  ) {
    const body = options.body ?? webhookFixture(integration, fixture);
    const query = `api_key=${bot.apiKey}&stream=dev${options.query ?? ""}`;
    const res = await postWebhook(server, `${integration}?${query}`, body, options.headers);
    expect(res.body).to.deep.equal({ result: "success", msg: "" });
    expect(res.status).to.equal(200);
    expect(await messageCount(server)).to.equal(baseline + 1);
    const message = await lastMessage(server);
    expect(message).to.include({ sender_id: bot.id, topic, content });
    return message!;
  }

  describe("github", function () {
    const gh = (event: string) => ({ headers: { "X-GitHub-Event": event } });
    const REPO = "public-repo";
    const ISSUE = "public-repo / issue #2 Spelling error in the README file";
    const PR = "public-repo / PR #1 Update the README with new information";

    it("ping", async function () {
      const message = await expectFixtureMessage(
        "github",
        "ping__organization.json",
        "zulip-test-org",
        "GitHub webhook has been successfully configured by eeshangarg.",
        gh("ping"),
      );
      expect(message.sending_client).to.equal("ZulipGitHubWebhook");
    });

    it("push (a forced push of one commit)", async function () {
      await expectFixtureMessage(
        "github",
        "push__force_1_commit.json",
        "zulip / temp",
        "sbansal1999 [force pushed](https://github.com/sbansal1999/zulip/compare/b6de8891fc10...971d76ca3094) 1 commit to branch temp.\n\n* log: Add important.txt which is useful for logging errors. ([971d76ca309](https://github.com/sbansal1999/zulip/commit/971d76ca309446a9c20381f6271cea8a59b4e40a))",
        gh("push"),
      );
    });

    it("push deleting a branch", async function () {
      await expectFixtureMessage(
        "github",
        "push__delete_branch.json",
        "public-repo / feature",
        "eeshangarg [deleted](https://github.com/eeshangarg/public-repo/compare/2e8cf535fb38...000000000000) the branch feature.",
        gh("push"),
      );
    });

    it("push of a tag", async function () {
      const payload = JSON.parse(webhookFixture("github", "release.json")) as Record<string, unknown>;
      const body = JSON.stringify({
        ref: "refs/tags/abc",
        created: true,
        deleted: false,
        forced: false,
        commits: [],
        repository: payload.repository,
        sender: payload.sender,
      });
      await expectFixtureMessage("github", "", REPO, "baxterthehacker pushed tag abc.", {
        ...gh("push"),
        body,
      });
    });

    it("push to a branch the `branches` option leaves out posts nothing", async function () {
      const res = await postWebhook(
        server,
        `github?api_key=${bot.apiKey}&stream=dev&branches=master,development`,
        webhookFixture("github", "push__force_1_commit.json"),
        { "X-GitHub-Event": "push" },
      );
      expectSuccess({ status: res.status, body: res.body } as never);
      expect(await messageCount(server)).to.equal(baseline);
    });

    it("issues (opened)", async function () {
      await expectFixtureMessage(
        "github",
        "issues.json",
        ISSUE,
        "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
        gh("issues"),
      );
    });

    it("issues with a topic in the URL names the issue", async function () {
      await expectFixtureMessage(
        "github",
        "issues.json",
        "notifications",
        "baxterthehacker opened [issue #2 Spelling error in the README file](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
        { ...gh("issues"), query: "&topic=notifications" },
      );
    });

    it("issue_comment", async function () {
      await expectFixtureMessage(
        "github",
        "issue_comment.json",
        ISSUE,
        "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
        gh("issue_comment"),
      );
    });

    it("pull_request opened, closed and merged", async function () {
      await expectFixtureMessage(
        "github",
        "pull_request__opened.json",
        PR,
        "baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~",
        gh("pull_request"),
      );
      baseline += 1;
      await expectFixtureMessage(
        "github",
        "pull_request__closed.json",
        PR,
        "baxterthehacker closed without merge [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).",
        gh("pull_request"),
      );
      baseline += 1;
      await expectFixtureMessage(
        "github",
        "pull_request__merged.json",
        PR,
        "baxterthehacker merged [PR #1](https://github.com/baxterthehacker/public-repo/pull/1).",
        gh("pull_request"),
      );
    });

    it("release", async function () {
      await expectFixtureMessage(
        "github",
        "release.json",
        REPO,
        "baxterthehacker published release [0.0.1](https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1) for tag 0.0.1.",
        gh("release"),
      );
    });

    it("exclude_events filters by event type", async function () {
      const res = await postWebhook(
        server,
        `github?api_key=${bot.apiKey}&stream=dev&exclude_events=${encodeURIComponent('["release"]')}`,
        webhookFixture("github", "release.json"),
        { "X-GitHub-Event": "release" },
      );
      expect(res.body).to.deep.equal({ result: "success", msg: "" });
      expect(await messageCount(server)).to.equal(baseline);
    });

    it("an unsupported event gets Zulip's answer and posts nothing", async function () {
      const res = await postWebhook(
        server,
        `github?api_key=${bot.apiKey}&stream=dev`,
        '{"action": "created"}',
        {
          "X-GitHub-Event": "sponsorship_tier",
        },
      );
      expectError(
        res as never,
        200,
        "The 'sponsorship_tier:created' event isn't currently supported by the GitHub webhook; ignoring",
        "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
      );
      expect(res.body).to.include({ webhook_name: "GitHub", event_type: "sponsorship_tier:created" });
      expect(await messageCount(server)).to.equal(baseline);
    });

    it("an ignored event succeeds and posts nothing", async function () {
      const res = await postWebhook(server, `github?api_key=${bot.apiKey}&stream=dev`, "{}", {
        "X-GitHub-Event": "milestone",
      });
      expect(res.body).to.deep.equal({ result: "success", msg: "" });
      expect(await messageCount(server)).to.equal(baseline);
    });

    it("without its event header: Zulip's error", async function () {
      const res = await postWebhook(server, `github?api_key=${bot.apiKey}&stream=dev`, "{}");
      expectError(
        res as never,
        400,
        "Missing the HTTP event header 'X-GitHub-Event'",
        "MISSING_HTTP_EVENT_HEADER",
      );
      expect(await messageCount(server)).to.equal(baseline);
    });

    it("a payload GitHub would not send: a 400, never a 500", async function () {
      const res = await postWebhook(server, `github?api_key=${bot.apiKey}&stream=dev`, '{"action": 3}', {
        "X-GitHub-Event": "issues",
      });
      expectError(
        res as never,
        400,
        "Unable to parse request: Did GitHub generate this event?",
        "ANOMALOUS_WEBHOOK_PAYLOAD",
      );
    });
  });

  describe("gitlab", function () {
    const gl = (event: string) => ({ headers: { "X-Gitlab-Event": event } });
    const BASE = "https://gitlab.com/tomaszkolek0/my-awesome-project";

    it("Push Hook", async function () {
      await expectFixtureMessage(
        "gitlab",
        "push_hook.json",
        "my-awesome-project / tomek",
        `Tomasz Kolek [pushed](${BASE}/-/compare/5fcdd5551fc3085df79bece2c32b1400802ac407...eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9) 2 commits to branch tomek.\n\n* b ([66abd2da288](${BASE}/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))\n* c ([eb6ae1e591e](${BASE}/commit/eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9))`,
        gl("Push Hook"),
      );
    });

    it("Tag Push Hook", async function () {
      await expectFixtureMessage(
        "gitlab",
        "tag_push_hook__add_tag.json",
        "my-awesome-project",
        "Tomasz Kolek pushed tag xyz.",
        gl("Tag Push Hook"),
      );
    });

    it("Issue Hook, and with a topic in the URL", async function () {
      await expectFixtureMessage(
        "gitlab",
        "issue_hook__issue_created_without_assignee.json",
        "my-awesome-project / issue #1 Issue title",
        `Tomasz Kolek created [issue #1](${BASE}/issues/1):\n\n~~~ quote\nIssue description\n~~~`,
        gl("Issue Hook"),
      );
      baseline += 1;
      await expectFixtureMessage(
        "gitlab",
        "issue_hook__issue_created_without_assignee.json",
        "notifications",
        `[[my-awesome-project](${BASE})] Tomasz Kolek created [issue #1 Issue title](${BASE}/issues/1):\n\n~~~ quote\nIssue description\n~~~`,
        { ...gl("Issue Hook"), query: "&topic=notifications" },
      );
    });

    it("Merge Request Hook", async function () {
      await expectFixtureMessage(
        "gitlab",
        "merge_request_hook__merge_request_created_without_assignee.json",
        "my-awesome-project / MR #2 NEW MR",
        `Tomasz Kolek created [MR #2](${BASE}/merge_requests/2) from \`tomek\` to \`master\`:\n\n~~~ quote\ndescription of merge request\n~~~`,
        gl("Merge Request Hook"),
      );
    });

    it("Note Hook", async function () {
      const sb = "https://gitlab.com/sbansal1999/testing-zulip-gitlab-integration";
      await expectFixtureMessage(
        "gitlab",
        "note_hook__merge_request_note.json",
        "testing-zulip-gitlab-integration / MR #1 add new-feature",
        `Satyam Bansal [commented](${sb}/-/merge_requests/1#note_1406328457) on [MR #1](${sb}/-/merge_requests/1):\n\n~~~ quote\nI am not sure if this new feature is even required or not.\n~~~`,
        gl("Note Hook"),
      );
    });

    it("Issue Hook update: no description or assignees, which only a new issue shows", async function () {
      await expectFixtureMessage(
        "gitlab",
        "issue_hook__issue_updated.json",
        "my-awesome-project / issue #1 Issue title_new",
        `Tomasz Kolek updated [issue #1](${BASE}/issues/1).`,
        gl("Issue Hook"),
      );
    });

    it("Issue Hook: a new issue's description without its hidden comments", async function () {
      await expectFixtureMessage(
        "gitlab",
        "issue_hook__issue_created_with_hidden_comment_in_description.json",
        "public-repo / issue #3 New Issue with hidden comment",
        "Eeshan Garg created [issue #3](https://gitlab.com/eeshangarg/public-repo/issues/3):\n\n~~~ quote\nThis description actually has a hidden comment in it!\n~~~",
        gl("Issue Hook"),
      );
    });

    describe("Merge Request Hook actions", function () {
      const MR3 = "my-awesome-project / MR #3 New Merge Request";
      /** Zulip's merge_request_hook__merge_request_updated.json with `attributes` changed. */
      const updated = (attributes: Record<string, unknown>, top: Record<string, unknown> = {}) => {
        const payload = JSON.parse(
          webhookFixture("gitlab", "merge_request_hook__merge_request_updated.json"),
        ) as Record<string, Record<string, unknown>>;
        return JSON.stringify({
          ...payload,
          ...top,
          object_attributes: { ...payload.object_attributes, ...attributes },
        });
      };

      it("update shows the description and assignees again", async function () {
        await expectFixtureMessage(
          "gitlab",
          "merge_request_hook__merge_request_updated.json",
          MR3,
          `Tomasz Kolek updated [MR #3](${BASE}/merge_requests/3) (assigned to Tomasz Kolek):\n\n~~~ quote\nupdated desc\n~~~`,
          gl("Merge Request Hook"),
        );
      });

      it("an update that pushed commits says so", async function () {
        await expectFixtureMessage(
          "gitlab",
          "",
          MR3,
          `Tomasz Kolek added commit(s) to [MR #3](${BASE}/merge_requests/3).`,
          {
            ...gl("Merge Request Hook"),
            body: updated({ oldrev: "5fcdd5551fc3085df79bece2c32b1400802ac407" }),
          },
        );
      });

      it("merge names the branches", async function () {
        await expectFixtureMessage(
          "gitlab",
          "",
          MR3,
          `Tomasz Kolek merged [MR #3](${BASE}/merge_requests/3) from \`tomek\` to \`master\`.`,
          { ...gl("Merge Request Hook"), body: updated({ action: "merge", state: "merged" }) },
        );
      });

      it("approved is worded as it is (approval, with several approvers, is not)", async function () {
        const eeshan = "https://gitlab.com/eeshangarg/my-awesome-project/merge_requests/1";
        const approved = (action: string) =>
          updated(
            { action, iid: 1, title: "Update the README with author name and email", url: eeshan },
            { user: { name: "Eeshan Garg", username: "eeshangarg" } },
          );
        const topic = "my-awesome-project / MR #1 Update the README with author ...";
        await expectFixtureMessage("gitlab", "", topic, `Eeshan Garg approved [MR #1](${eeshan}).`, {
          ...gl("Merge Request Hook"),
          body: approved("approved"),
        });
        baseline += 1;
        await expectFixtureMessage(
          "gitlab",
          "",
          topic,
          `Eeshan Garg added their approval for [MR #1](${eeshan}).`,
          {
            ...gl("Merge Request Hook"),
            body: approved("approval"),
          },
        );
      });

      it("use_merge_request_title=false leaves the title out of the topic", async function () {
        const closed = JSON.parse(
          webhookFixture("gitlab", "merge_request_hook__merge_request_created_without_assignee.json"),
        ) as { object_attributes: Record<string, unknown> };
        closed.object_attributes.action = "close";
        await expectFixtureMessage(
          "gitlab",
          "",
          "my-awesome-project / MR #2",
          `Tomasz Kolek closed [MR #2](${BASE}/merge_requests/2).`,
          {
            ...gl("Merge Request Hook"),
            body: JSON.stringify(closed),
            query: "&use_merge_request_title=false",
          },
        );
      });

      it("use_merge_request_title must be a JSON boolean; an unknown action is unsupported", async function () {
        const res = await postWebhook(
          server,
          `gitlab?api_key=${bot.apiKey}&stream=dev&use_merge_request_title=nope`,
          updated({}),
          { "X-Gitlab-Event": "Merge Request Hook" },
        );
        expectError(res as never, 400, "use_merge_request_title is not valid JSON", "BAD_REQUEST");
        for (const action of ["frobnicate", "constructor"]) {
          const unknown = await postWebhook(
            server,
            `gitlab?api_key=${bot.apiKey}&stream=dev`,
            updated({ action }),
            { "X-Gitlab-Event": "Merge Request Hook" },
          );
          expectError(
            unknown as never,
            200,
            `The 'Merge Request Hook ${action}' event isn't currently supported by the GitLab webhook; ignoring`,
            "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
          );
        }
        expect(await messageCount(server)).to.equal(baseline);
      });
    });

    it("Note Hook on a snippet", async function () {
      const sb = "https://gitlab.com/sbansal1999/testing-zulip-gitlab-integration";
      await expectFixtureMessage(
        "gitlab",
        "note_hook__snippet_note.json",
        "testing-zulip-gitlab-integration / snippet #2547713 a ver...",
        `Satyam Bansal [commented](${sb}/-/snippets/2547713#note_1424268837) on [snippet #2547713](${sb}/-/snippets/2547713):\n\n~~~ quote\nsome comment\n~~~`,
        gl("Note Hook"),
      );
    });

    it("an unsupported hook gets Zulip's answer", async function () {
      const res = await postWebhook(server, `gitlab?api_key=${bot.apiKey}&stream=dev`, "{}", {
        "X-Gitlab-Event": "Wiki Page Hook",
      });
      expectError(
        res as never,
        200,
        "The 'Wiki Page Hook' event isn't currently supported by the GitLab webhook; ignoring",
        "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
      );
      expect(await messageCount(server)).to.equal(baseline);
    });
  });

  describe("alertmanager", function () {
    const SOURCE =
      "http://cobalt:9090/graph?g0.expr=avg+by%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15&g0.tab=0";

    it("firing alerts, grouped by the `name` option, described by `desc`", async function () {
      await expectFixtureMessage(
        "alertmanager",
        "alert.json",
        "andromeda",
        `:alert: **FIRING**\n* CPU core temperature is 34.75C ([source](${SOURCE}))\n* CPU core temperature is 17.625C ([source](${SOURCE}))`,
        { query: "&name=topic&desc=description" },
      );
    });

    it("a resolved alert", async function () {
      await expectFixtureMessage(
        "alertmanager",
        "single_alert.json",
        "andromeda",
        `:squared_ok: **Resolved** CPU core temperature is 34.75C ([source](${SOURCE}))`,
        { query: "&name=topic&desc=description" },
      );
    });

    it("an alert without a generatorURL has no link", async function () {
      await expectFixtureMessage(
        "alertmanager",
        "single_alert_no_url.json",
        "andromeda",
        ":alert: **FIRING** CPU core temperature is 34.75C",
        { query: "&name=topic&desc=description" },
      );
    });
  });

  describe("json", function () {
    it("posts the payload as a json code block to the topic JSON", async function () {
      const body = webhookFixture("json", "json_pingdom_http_up_to_down.json");
      const pretty = JSON.stringify(JSON.parse(body), null, 2);
      await expectFixtureMessage(
        "json",
        "json_pingdom_http_up_to_down.json",
        "JSON",
        `\`\`\`json\n${pretty}\n\`\`\``,
      );
    });

    it("escapes non-ASCII text as Python's json.dumps does", async function () {
      await expectFixtureMessage(
        "json",
        "",
        "JSON",
        '```json\n{\n  "name": "caf\\u00e9 \\ud83d\\ude00"\n}\n```',
        {
          body: '{"name": "café 😀"}',
        },
      );
    });
  });

  describe("slack_incoming", function () {
    it("text, without a channel: Zulip's empty topic", async function () {
      await expectFixtureMessage("slack_incoming", "text.json", "", "Hello, world.");
    });

    it("a form-encoded payload: the channel is the topic, the icon leads the text", async function () {
      await expectFixtureMessage(
        "slack_incoming",
        "urlencoded_text.txt",
        "devops",
        ":zap: chris has started deploying project tag v0.0.2rc10 to staging",
        { headers: { "content-type": "application/x-www-form-urlencoded" } },
      );
    });

    it("Slack's emphasis, as Zulip's test_message_formatting converts it", async function () {
      for (const [text, content] of [
        ["some *foo* word", "some **foo** word"],
        ["*foo*", "**foo**"],
        ["*foo* *bar*", "**foo** **bar**"],
        ["*foo*a*bar*", "*foo*a*bar*"],
        ["some _foo_ word", "some *foo* word"],
        ["a ~gone~ word", "a ~~gone~~ word"],
      ] as const) {
        await expectFixtureMessage("slack_incoming", "", "", content, { body: JSON.stringify({ text }) });
        baseline += 1;
      }
    });

    it("bare and mailto links; blocks Zulip does not render add nothing", async function () {
      const payload = {
        blocks: [
          { type: "rich_text", elements: [] },
          {
            type: "section",
            text: {
              type: "mrkdwn",
              text: "See <https://example.com> or <mailto:ops@example.com|ops@example.com>",
            },
          },
          { type: "call", call_id: "R1" },
        ],
      };
      await expectFixtureMessage(
        "slack_incoming",
        "",
        "",
        "See https://example.com or mailto:ops@example.com",
        {
          body: JSON.stringify(payload),
        },
      );
    });

    it("an attachment's time in Zulip's global time syntax", async function () {
      await expectFixtureMessage(
        "slack_incoming",
        "attachment_pieces.json",
        "",
        "## Test\n\n[](https://pbs.twimg.com/profile_images/625633822235693056/lNGUneLX_400x400.jpg)\n\n<time:2022-06-23T00:48:26+00:00>",
      );
    });

    it("blocks and attachments, with Slack's links and emphasis", async function () {
      const payload = {
        blocks: [
          { type: "header", text: { type: "plain_text", text: "Deploy" } },
          { type: "section", text: { type: "mrkdwn", text: "*Done* on <https://ci.example.com/1|build 1>" } },
          { type: "divider" },
          {
            type: "section",
            fields: [
              { type: "mrkdwn", text: "_env_" },
              { type: "plain_text", text: "prod" },
              { type: "plain_text", text: "a|b" },
            ],
          },
        ],
        attachments: [
          {
            title: "Logs",
            title_link: "https://ci.example.com/1/logs",
            fields: [{ title: "Status", value: "ok" }],
          },
        ],
      };
      await expectFixtureMessage(
        "slack_incoming",
        "",
        "builds",
        "## Deploy\n\n**Done** on [build 1](https://ci.example.com/1)\n\n----\n\n| | |\n|-|-|\n| *env* | prod |\n| a b |  |\n\n## [Logs](https://ci.example.com/1/logs)\n\n**Status**: ok",
        { body: JSON.stringify(payload), query: "&topic=builds" },
      );
    });
  });
});
