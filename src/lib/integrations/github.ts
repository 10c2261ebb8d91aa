import { unsupportedEvent, missingEventHeader } from "./errors.js";
import {
  branchNotifiable,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  releaseMessage,
  setupMessage,
  topicWithBranch,
  topicWithPrOrIssue,
  type PushedCommit,
} from "./git.js";
import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage } from "./types.js";
import type { Wild } from "./wild.js";

/**
 * GitHub (Zulip's zerver/webhooks/github): the X-GitHub-Event header names the event,
 * refined by the payload's action. Supported here: ping, push (commits, tags, deleted
 * branches), pull_request, issues, issue_comment and release.
 */

const NAME = "GitHub";
const EVENT_HEADER = "X-GitHub-Event";

/** Events GitHub sends that Zulip accepts and posts nothing for. */
const IGNORED_EVENTS = new Set([
  "check_suite",
  "label",
  "meta",
  "milestone",
  "organization",
  "project_card",
  "repository_vulnerability_alert",
]);
const IGNORED_PULL_REQUEST_ACTIONS = new Set([
  "approved",
  "converted_to_draft",
  "labeled",
  "review_request_removed",
  "unlabeled",
]);

/** Events whose header names their message as it is. */
const DIRECT_EVENTS = new Set(["ping", "issue_comment", "release"]);

type Body = (payload: Wild, includeTitle: boolean) => string;

const sender = (payload: Wild) => payload.get("sender").get("login").str();
const repoName = (payload: Wild) => payload.get("repository").get("name").str();
const titleIf = (include: boolean, item: Wild) => (include ? item.get("title").str() : null);

const BODIES: Record<string, Body> = {
  ping: (payload) => setupMessage(NAME, sender(payload)),
  push_commits(payload) {
    const commits: PushedCommit[] = payload
      .get("commits")
      .items()
      .map((commit) => {
        const author = commit.get("author");
        const username = author.opt("username");
        return {
          name: username?.truthy ? username.str() : author.get("name").str(),
          sha: commit.get("id").str(),
          url: commit.get("url").str(),
          message: commit.get("message").str(),
        };
      });
    return pushCommitsMessage({
      userName: sender(payload),
      compareUrl: payload.get("compare").str(),
      branch: branchName(payload.get("ref").str()),
      commits,
      deleted: payload.get("deleted").bool(),
      forced: payload.get("forced").bool(),
    });
  },
  push_tags: (payload) =>
    pushTagMessage(
      sender(payload),
      payload
        .get("ref")
        .str()
        .replace(/^refs\/tags\//, ""),
      payload.get("created").bool() ? "pushed" : "removed",
    ),
  opened_pull_request: openedOrUpdatedPullRequest,
  updated_pull_request: openedOrUpdatedPullRequest,
  assigned_or_unassigned_pull_request(payload, includeTitle) {
    const pr = payload.get("pull_request");
    return pullRequestMessage({
      userName: sender(payload),
      action: payload.get("action").str(),
      url: pr.get("html_url").str(),
      number: pr.get("number").int(),
      title: titleIf(includeTitle, pr),
      assigneeUpdated: payload.get("assignee").get("login").str(),
    });
  },
  closed_pull_request(payload, includeTitle) {
    const pr = payload.get("pull_request");
    return pullRequestMessage({
      userName: sender(payload),
      action: pr.get("merged").bool() ? "merged" : "closed without merge",
      url: pr.get("html_url").str(),
      number: pr.get("number").int(),
      title: titleIf(includeTitle, pr),
    });
  },
  issues(payload, includeTitle) {
    const action = payload.get("action").str();
    const issue = payload.get("issue");
    return issueMessage({
      userName: sender(payload),
      action,
      url: issue.get("html_url").str(),
      number: issue.get("number").int(),
      message: action === "assigned" || action === "unassigned" ? null : issue.get("body").strOrNull(),
      title: titleIf(includeTitle, issue),
      ...(payload.has("assignee") ? { assigneeUpdated: payload.get("assignee").get("login").str() } : {}),
    });
  },
  issue_comment(payload, includeTitle) {
    const issue = payload.get("issue");
    const comment = payload.get("comment");
    const action = payload.get("action").str();
    const verb = action === "created" ? "[commented]" : `${action} a [comment]`;
    return pullRequestMessage({
      userName: sender(payload),
      action: `${verb}(${comment.get("html_url").str()}) on`,
      url: issue.get("html_url").str(),
      number: issue.get("number").int(),
      message: comment.get("body").str(),
      title: titleIf(includeTitle, issue),
      type: issue.has("pull_request") ? "PR" : "issue",
    });
  },
  release(payload) {
    const release = payload.get("release");
    const tagName = release.get("tag_name").str();
    const name = release.get("name");
    return releaseMessage(
      sender(payload),
      payload.get("action").str(),
      tagName,
      name.truthy ? name.str() : tagName,
      release.get("html_url").str(),
    );
  },
};

function openedOrUpdatedPullRequest(payload: Wild, includeTitle: boolean): string {
  const pr = payload.get("pull_request");
  let action = payload.get("action").str();
  if (action === "synchronize") action = "updated";
  const assignee = pr.opt("assignee");
  const changes = payload.opt("changes");
  const withBody = (changes?.has("body") ?? false) || action === "opened";
  const withBranches = action === "opened" || action === "merged";
  return pullRequestMessage({
    userName: sender(payload),
    action,
    url: pr.get("html_url").str(),
    ...(withBranches
      ? {
          targetBranch: pr.get("head").get("label").str(),
          baseBranch: pr.get("base").get("label").str(),
        }
      : {}),
    message: withBody ? pr.get("body").strOrNull() : null,
    assignee: assignee?.truthy ? assignee.get("login").str() : null,
    number: pr.get("number").int(),
    title: titleIf(includeTitle, pr),
  });
}

const branchName = (ref: string) => ref.replace(/^refs\/heads\//, "");

/** Zulip's get_zulip_event_name: the key of BODIES, or null for an ignored event. */
function eventName(header: string, payload: Wild, branches: string | undefined): string | null {
  if (header === "pull_request") {
    const action = payload.get("action").str();
    if (action === "opened" || action === "reopened") return "opened_pull_request";
    if (action === "synchronize" || action === "edited") return "updated_pull_request";
    if (action === "assigned" || action === "unassigned") return "assigned_or_unassigned_pull_request";
    if (action === "closed") return "closed_pull_request";
    if (IGNORED_PULL_REQUEST_ACTIONS.has(action)) return null;
  } else if (header === "push") {
    const ref = payload.get("ref").str();
    if (ref.startsWith("refs/heads/gh-readonly-queue/")) return null;
    if (!ref.startsWith("refs/heads/")) return "push_tags";
    return branchNotifiable(branchName(ref), branches) ? "push_commits" : null;
  } else if (header === "issues") {
    const action = payload.get("action").str();
    if (!["labeled", "unlabeled", "milestoned", "demilestoned", "transferred"].includes(action)) {
      if (!(action === "opened" && payload.opt("changes")?.has("old_issue"))) return "issues";
    }
  } else if (DIRECT_EVENTS.has(header)) {
    return header;
  } else if (IGNORED_EVENTS.has(header)) {
    return null;
  }
  const action = payload.opt("action");
  throw unsupportedEvent(NAME, `${header}:${action ? action.str() : "???"}`);
}

function topic(payload: Wild, event: string): string {
  if (event.includes("pull_request")) {
    const pr = payload.get("pull_request");
    return topicWithPrOrIssue(repoName(payload), "PR", pr.get("number").int(), pr.get("title").str());
  }
  if (event.startsWith("issue")) {
    const issue = payload.get("issue");
    const type = issue.has("pull_request") ? "PR" : "issue";
    return topicWithPrOrIssue(repoName(payload), type, issue.get("number").int(), issue.get("title").str());
  }
  if (event === "push_commits")
    return topicWithBranch(repoName(payload), branchName(payload.get("ref").str()));
  if (event === "ping" && !payload.opt("repository")?.truthy) {
    return payload.get("organization").get("login").str();
  }
  return repoName(payload);
}

function messages(input: WebhookInput): WebhookMessage[] {
  const header = input.header(EVENT_HEADER);
  if (header === undefined) throw missingEventHeader(EVENT_HEADER);
  const { payload } = input;
  const repository = payload.opt("repository");
  if (
    repository?.truthy &&
    repository.get("private").bool() &&
    input.param("ignore_private_repositories") === "true"
  ) {
    return [];
  }
  const event = eventName(header, payload, input.param("branches"));
  if (event === null) return [];
  const includeTitle = input.userSpecifiedTopic !== undefined;
  return [{ topic: topic(payload, event), content: BODIES[event]!(payload, includeTitle), eventType: event }];
}

export const github: IncomingWebhookIntegration = {
  name: "github",
  displayName: NAME,
  webhookName: NAME,
  allEventTypes: Object.keys(BODIES),
  urlOptions: [
    { key: "branches", label: "", inputType: "string" },
    {
      key: "ignore_private_repositories",
      label: "Exclude notifications from private repositories",
      inputType: "bool",
    },
  ],
  configOptions: [],
  messages,
};
