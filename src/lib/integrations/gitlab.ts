import { badRequest } from "../../errors.js";
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
 * (comments on merge requests, issues, commits and snippets). The URL option
 * `use_merge_request_title=false` leaves merge request titles out of topics.
 */

const NAME = "GitLab";
const EVENT_HEADER = "X-Gitlab-Event";

const ISSUE_ACTIONS: Record<string, string> = {
  open: "created",
  update: "updated",
  close: "closed",
  reopen: "reopened",
};
/**
 * Merge request actions as the message words them. "approval" and "unapproval" (sent when
 * more than one approval is required) read "added their approval for" in git.ts.
 */
const MR_ACTIONS: Record<string, string> = {
  open: "created",
  update: "updated",
  close: "closed",
  reopen: "reopened",
  merge: "merged",
  approved: "approved",
  unapproved: "unapproved",
  approval: "approval",
  unapproval: "unapproval",
};

const repoName = (payload: Wild) =>
  payload.has("project")
    ? payload.get("project").get("name").str()
    : payload.get("repository").get("name").str();
const projectUrl = (payload: Wild) =>
  payload.has("project")
    ? payload.get("project").get("web_url").str()
    : payload.get("repository").get("homepage").str();
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

/** An action's wording, if it is one of the table's own keys (not "constructor" and the like). */
const wordingOf = (table: Record<string, string>, action: string): string | undefined =>
  Object.hasOwn(table, action) ? table[action] : undefined;

/** The hook's object_attributes action; Zulip takes a missing one for "open". */
const actionOf = (attributes: Wild) => attributes.opt("action")?.str() ?? "open";

/** Zulip drops HTML comments (<!-- ... -->) from a new issue's description. */
const withoutHiddenComments = (text: string) => text.replace(/<!--[\s\S]*?-->/g, "").trimEnd();

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

function issueEvent(header: string, payload: Wild, includeTitle: boolean): Event {
  const issue = payload.get("object_attributes");
  const action = actionOf(issue);
  const wording = wordingOf(ISSUE_ACTIONS, action);
  if (wording === undefined) throw unsupportedEvent(NAME, `${header} ${action}`);
  const id = issue.get("iid").int();
  const title = issue.get("title").str();
  // Only a new issue shows its description and assignees.
  const opened = action === "open";
  const description = opened ? issue.opt("description") : undefined;
  return {
    topic: topicWithPrOrIssue(repoName(payload), "issue", id, title),
    body: issueMessage({
      userName: userName(payload),
      action: wording,
      url: issue.get("url").str(),
      number: id,
      message: description?.truthy ? withoutHiddenComments(description.str()) : null,
      assignees: opened ? assignees(payload) : [],
      title: includeTitle ? title : null,
    }),
    type: `issue_hook__${action}`,
  };
}

/** "repo / MR #3 Title", or without the title when the URL says use_merge_request_title=false. */
const mrTopic = (payload: Wild, id: number, title: string, useTitle: boolean) =>
  useTitle ? topicWithPrOrIssue(repoName(payload), "MR", id, title) : `${repoName(payload)} / MR #${id}`;

function mergeRequestEvent(payload: Wild, includeTitle: boolean, useTitle: boolean): Event {
  const mr = payload.get("object_attributes");
  const action = actionOf(mr);
  let wording = wordingOf(MR_ACTIONS, action);
  if (wording === undefined) throw unsupportedEvent(NAME, `Merge Request Hook ${action}`);
  const id = mr.get("iid").int();
  const title = mr.get("title").str();
  // An update that pushed commits says so; any other update shows the description again.
  if (action === "update" && mr.opt("oldrev")?.truthy) wording = "added commit(s) to";
  const detailed = action === "open" || wording === "updated";
  const branches = action === "open" || action === "merge";
  return {
    topic: mrTopic(payload, id, title, useTitle),
    body: pullRequestMessage({
      userName: userName(payload),
      action: wording,
      url: mr.get("url").str(),
      number: id,
      type: "MR",
      ...(branches
        ? { targetBranch: mr.get("source_branch").str(), baseBranch: mr.get("target_branch").str() }
        : {}),
      ...(detailed ? { message: mr.get("description").strOrNull(), assignees: assignees(payload) } : {}),
      title: includeTitle ? title : null,
    }),
    type: `merge_request_hook__${action}`,
  };
}

function noteEvent(header: string, payload: Wild, includeTitle: boolean, useTitle: boolean): Event {
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
      topic:
        type === "MR"
          ? mrTopic(payload, id, title, useTitle)
          : topicWithPrOrIssue(repoName(payload), type, id, title),
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
  if (kind === "Snippet") {
    const snippet = payload.get("snippet");
    const id = snippet.get("id").int();
    const title = snippet.get("title").str();
    // A snippet's own URL is in payloads from GitLab 16.1 on.
    const url =
      snippet.opt("url")?.str() ?? `${payload.get("project").get("web_url").str()}/-/snippets/${id}`;
    return {
      topic: topicWithPrOrIssue(repoName(payload), "snippet", id, title),
      body: pullRequestMessage({
        userName: userName(payload),
        action: commented,
        url,
        number: id,
        message: text,
        type: "snippet",
        title: includeTitle ? title : null,
      }),
      type: "note_hook__snippet",
    };
  }
  if (kind === "Commit") {
    const commit = payload.get("commit");
    const sha = commit.get("id").str();
    const head = `${userName(payload)} ${commented} [${sha.slice(0, 11)}](${commit.get("url").str()})`;
    return {
      topic: repoName(payload),
      body: text ? `${head}:\n~~~ quote\n${text}\n~~~` : `${head}.`,
      type: "note_hook__commit",
    };
  }
  throw unsupportedEvent(NAME, `${header} ${kind}`);
}

/** Zulip's Json[bool] URL option: true unless given as JSON false. */
function booleanParam(input: WebhookInput, name: string, fallback: boolean): boolean {
  const raw = input.param(name);
  if (raw === undefined) return fallback;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest(`${name} is not valid JSON`);
  }
  if (typeof value !== "boolean") throw badRequest(`${name} is not a boolean`);
  return value;
}

function messages(input: WebhookInput): WebhookMessage[] {
  const header = input.header(EVENT_HEADER);
  if (header === undefined) throw missingEventHeader("X-GitLab-Event");
  const { payload } = input;
  const includeTitle = input.userSpecifiedTopic !== undefined;
  const useTitle = booleanParam(input, "use_merge_request_title", true);
  let event: Event | null;
  if (header === "Push Hook") event = pushEvent(payload, input.param("branches"));
  else if (header === "Tag Push Hook") event = tagPushEvent(payload);
  else if (header === "Issue Hook" || header === "Confidential Issue Hook")
    event = issueEvent(header, payload, includeTitle);
  else if (header === "Merge Request Hook") event = mergeRequestEvent(payload, includeTitle, useTitle);
  else if (header === "Note Hook" || header === "Confidential Note Hook")
    event = noteEvent(header, payload, includeTitle, useTitle);
  else throw unsupportedEvent(NAME, header);
  if (event === null) return [];
  // With a (non-empty) topic from the URL, the message says which project it is about.
  const body = input.userSpecifiedTopic
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
