import { missingEventHeader, unsupportedEvent } from "./errors.js";
import {
  EMPTY_SHA,
  branchNotifiable,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  removeBranchMessage,
  topicWithBranch,
  topicWithPrOrIssue,
} from "./git.js";
import type { IncomingWebhookIntegration, WebhookInput, WebhookMessage } from "./types.js";
import type { Wild } from "./wild.js";

/**
 * GitLab (Zulip's zerver/webhooks/gitlab): the X-Gitlab-Event header names the hook.
 * Supported here: Push Hook, Tag Push Hook, Issue Hook, Merge Request Hook and Note Hook
 * (comments on merge requests, issues and commits).
 */

const NAME = "GitLab";
const EVENT_HEADER = "X-Gitlab-Event";

const ISSUE_ACTIONS: Record<string, string> = {
  open: "created",
  update: "updated",
  close: "closed",
  reopen: "reopened",
};
const MR_ACTIONS: Record<string, string> = {
  open: "created",
  update: "updated",
  close: "closed",
  reopen: "reopened",
  merge: "merged",
  approved: "approval",
  unapproved: "unapproval",
};

const repoName = (payload: Wild) =>
  payload.has("project")
    ? payload.get("project").get("name").str()
    : payload.get("repository").get("name").str();
const projectUrl = (payload: Wild) => payload.get("project").get("web_url").str();
const userName = (payload: Wild) => payload.get("user").get("name").str();
const branchName = (ref: string) => ref.replace(/^refs\/heads\//, "");

function assignees(payload: Wild): string[] {
  const list = payload.opt("assignees");
  if (list?.truthy) return list.items().map((a) => a.get("name").str());
  const single = payload.opt("assignee");
  return single?.truthy ? [single.get("name").str()] : [];
}

interface Event {
  readonly topic: string;
  readonly body: string;
  readonly type: string;
}

function pushEvent(payload: Wild, branches: string | undefined): Event | null {
  const branch = branchName(payload.get("ref").str());
  if (!branchNotifiable(branch, branches)) return null;
  const topic = topicWithBranch(repoName(payload), branch);
  const user = payload.get("user_name").str();
  const after = payload.get("after").str();
  if (after === EMPTY_SHA) return { topic, body: removeBranchMessage(user, branch), type: "push_hook" };
  const before = payload.get("before").str();
  const body = pushCommitsMessage({
    userName: user,
    compareUrl: `${projectUrl(payload)}/-/compare/${before}...${after}`,
    branch,
    commits: payload
      .get("commits")
      .items()
      .map((commit) => ({
        name: commit.get("author").get("name").str(),
        sha: commit.get("id").str(),
        url: commit.get("url").str(),
        message: commit.get("message").str(),
      })),
  });
  return { topic, body, type: "push_hook" };
}

function tagPushEvent(payload: Wild): Event {
  const tag = payload
    .get("ref")
    .str()
    .replace(/^refs\/tags\//, "");
  const action = payload.get("checkout_sha").truthy ? "pushed" : "removed";
  return {
    topic: repoName(payload),
    body: pushTagMessage(payload.get("user_name").str(), tag, action),
    type: "tag_push_hook",
  };
}

function issueEvent(payload: Wild, includeTitle: boolean): Event {
  const issue = payload.get("object_attributes");
  const action = issue.get("action").str();
  const id = issue.get("iid").int();
  const title = issue.get("title").str();
  return {
    topic: topicWithPrOrIssue(repoName(payload), "issue", id, title),
    body: issueMessage({
      userName: userName(payload),
      action: ISSUE_ACTIONS[action] ?? action,
      url: issue.get("url").str(),
      number: id,
      message: action === "open" ? issue.get("description").strOrNull() : null,
      assignees: assignees(payload),
      title: includeTitle ? title : null,
    }),
    type: `issue_hook__${action}`,
  };
}

function mergeRequestEvent(payload: Wild, includeTitle: boolean): Event {
  const mr = payload.get("object_attributes");
  const action = mr.get("action").str();
  const id = mr.get("iid").int();
  const title = mr.get("title").str();
  const opened = action === "open";
  return {
    topic: topicWithPrOrIssue(repoName(payload), "MR", id, title),
    body: pullRequestMessage({
      userName: userName(payload),
      action: MR_ACTIONS[action] ?? action,
      url: mr.get("url").str(),
      number: id,
      type: "MR",
      ...(opened
        ? {
            targetBranch: mr.get("source_branch").str(),
            baseBranch: mr.get("target_branch").str(),
            message: mr.get("description").strOrNull(),
            assignees: assignees(payload),
          }
        : {}),
      title: includeTitle ? title : null,
    }),
    type: `merge_request_hook__${action}`,
  };
}

function noteEvent(payload: Wild, includeTitle: boolean): Event {
  const note = payload.get("object_attributes");
  const kind = note.get("noteable_type").str();
  const commented = `[commented](${note.get("url").str()}) on`;
  const text = note.get("note").str();
  if (kind === "MergeRequest" || kind === "Issue") {
    const item = payload.get(kind === "MergeRequest" ? "merge_request" : "issue");
    const type = kind === "MergeRequest" ? "MR" : "issue";
    const id = item.get("iid").int();
    const title = item.get("title").str();
    return {
      topic: topicWithPrOrIssue(repoName(payload), type, id, title),
      body: pullRequestMessage({
        userName: userName(payload),
        action: commented,
        url: item.get("url").str(),
        number: id,
        message: text,
        type,
        title: includeTitle ? title : null,
      }),
      type: `note_hook__${kind === "MergeRequest" ? "merge_request" : "issue"}`,
    };
  }
  if (kind === "Commit") {
    const commit = payload.get("commit");
    const sha = commit.get("id").str();
    return {
      topic: repoName(payload),
      body: `${userName(payload)} ${commented} [${sha.slice(0, 11)}](${commit.get("url").str()}):\n~~~ quote\n${text}\n~~~`,
      type: "note_hook__commit",
    };
  }
  throw unsupportedEvent(NAME, `Note Hook ${kind}`);
}

function messages(input: WebhookInput): WebhookMessage[] {
  const header = input.header(EVENT_HEADER);
  if (header === undefined) throw missingEventHeader("X-GitLab-Event");
  const { payload } = input;
  const includeTitle = input.userSpecifiedTopic !== undefined;
  let event: Event | null;
  if (header === "Push Hook") event = pushEvent(payload, input.param("branches"));
  else if (header === "Tag Push Hook") event = tagPushEvent(payload);
  else if (header === "Issue Hook" || header === "Confidential Issue Hook")
    event = issueEvent(payload, includeTitle);
  else if (header === "Merge Request Hook") event = mergeRequestEvent(payload, includeTitle);
  else if (header === "Note Hook" || header === "Confidential Note Hook")
    event = noteEvent(payload, includeTitle);
  else throw unsupportedEvent(NAME, header);
  if (event === null) return [];
  // With a topic from the URL, the message says which project it is about.
  const body =
    includeTitle && payload.has("project")
      ? `[[${repoName(payload)}](${projectUrl(payload)})] ${event.body}`
      : event.body;
  return [{ topic: event.topic, content: body, eventType: event.type }];
}

export const gitlab: IncomingWebhookIntegration = {
  name: "gitlab",
  displayName: NAME,
  webhookName: NAME,
  allEventTypes: null,
  urlOptions: [{ key: "branches", label: "", inputType: "string" }],
  configOptions: [],
  messages,
};
