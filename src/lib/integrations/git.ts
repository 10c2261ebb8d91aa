/**
 * The wording shared by Zulip's git integrations (zerver/lib/webhooks/git.py): push,
 * pull/merge request, issue, tag and release messages, and their topics.
 */

export const EMPTY_SHA = "0000000000000000000000000000000000000000";
/** Commits listed in a push message; the rest are counted. */
export const COMMITS_LIMIT = 20;
/** Committers named in a push message; the rest are "others". */
const COMMITTERS_LIMIT = 3;
const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithPrOrIssue = (repo: string, type: string, id: number, title: string) =>
  `${repo} / ${type} #${id} ${title}`;

export const shortSha = (sha: string) => sha.slice(0, 11);

/** A quoted block of text, as the messages end with. */
export const quote = (message: string) => `\n~~~ quote\n${message}\n~~~`;

/** "GitHub webhook has been successfully configured by X." */
export function setupMessage(integration: string, userName?: string): string {
  return `${integration} webhook has been successfully configured${userName ? ` by ${userName}` : ""}.`;
}

export interface PushedCommit {
  /** The committer as named in the message. */
  readonly name: string;
  readonly sha: string;
  readonly url: string;
  readonly message: string;
}

function commitsContent(commits: readonly PushedCommit[]): string {
  let content = "";
  for (const commit of commits.slice(0, COMMITS_LIMIT)) {
    const firstLine = commit.message.split("\n", 1)[0];
    content += `* ${firstLine} ([${shortSha(commit.sha)}](${commit.url}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) content += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  return content.trimEnd();
}

/** Committers by number of commits, then name; beyond the limit, "others". */
function committers(commits: readonly PushedCommit[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const commit of commits) counts.set(commit.name, (counts.get(commit.name) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (sorted.length <= COMMITTERS_LIMIT) return sorted;
  const others = sorted.slice(COMMITTERS_LIMIT).reduce((sum, [, n]) => sum + n, 0);
  return [...sorted.slice(0, COMMITTERS_LIMIT), ["others", others]];
}

export interface PushMessage {
  readonly userName: string;
  readonly compareUrl: string | null;
  readonly branch: string;
  readonly commits: readonly PushedCommit[];
  readonly deleted?: boolean;
  readonly forced?: boolean;
}

export function pushCommitsMessage(push: PushMessage): string {
  const { userName, compareUrl, branch, commits } = push;
  if (commits.length === 0 && push.deleted) {
    return `${userName} [deleted](${compareUrl}) the branch ${branch}.`;
  }
  const pushType = push.forced ? "force pushed" : "pushed";
  if (commits.length === 0) {
    return compareUrl
      ? `${userName} [${pushType}](${compareUrl}) the branch ${branch}.`
      : `${userName} ${pushType} the branch ${branch}.`;
  }
  const count = `${commits.length} commit${commits.length > 1 ? "s" : ""}`;
  const pushed = compareUrl ? `[${pushType}](${compareUrl}) ${count}` : `${pushType} ${count}`;
  const base = `${userName} ${pushed} to branch ${branch}.`;
  const names = committers(commits);
  if (names.length === 1 && names[0]![0] === userName) return `${base}\n\n${commitsContent(commits)}`;
  let details = `${names[0]![0]} (${names[0]![1]})`;
  for (const [name, n] of names.slice(1, -1)) details += `, ${name} (${n})`;
  if (names.length > 1) details += ` and ${names.at(-1)![0]} (${names.at(-1)![1]})`;
  return `${base} Commits by ${details}.\n\n${commitsContent(commits)}`;
}

export const removeBranchMessage = (userName: string, branch: string) =>
  `${userName} deleted branch ${branch}.`;

export function pushTagMessage(userName: string, tag: string, action: string, tagUrl?: string): string {
  const message = `${userName} ${action} tag ${tagUrl ? `[${tag}](${tagUrl})` : tag}`;
  return PUNCTUATION.includes(tag.at(-1) ?? "") ? message : `${message}.`;
}

export interface PullRequestMessage {
  readonly userName: string;
  readonly action: string;
  readonly url: string;
  readonly number?: number;
  /** Source and target branches ("from `a` to `b`"). */
  readonly targetBranch?: string;
  readonly baseBranch?: string;
  readonly message?: string | null;
  readonly assignee?: string | null;
  readonly assignees?: readonly string[];
  readonly assigneeUpdated?: string;
  readonly reviewer?: string;
  /** "PR" (default), "MR", "issue", ... */
  readonly type?: string;
  /** Given when the URL set the topic, so the message names what it is about. */
  readonly title?: string | null;
}

const ACTION_WORDING: Record<string, string> = {
  approval: "added their approval for",
  unapproval: "removed their approval for",
};

const assigneeList = (names: readonly string[]) =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(", ")} and ${names.at(-1)!}`;

export function pullRequestMessage(pr: PullRequestMessage): string {
  const { action, title } = pr;
  const assigneeUpdate =
    action === "assigned"
      ? ` ${pr.assigneeUpdated} to`
      : action === "unassigned"
        ? ` ${pr.assigneeUpdated} from`
        : "";
  const id = pr.number !== undefined ? ` #${pr.number}` : "";
  const titled = title != null ? ` ${title}` : "";
  let main = `${pr.userName} ${ACTION_WORDING[action] ?? action}${assigneeUpdate} [${pr.type ?? "PR"}${id}${titled}](${pr.url})`;
  const branches = Boolean(pr.targetBranch && pr.baseBranch);
  if (branches) main += ` from \`${pr.targetBranch}\` to \`${pr.baseBranch}\``;
  const assignees = pr.assignees && pr.assignees.length > 0 ? pr.assignees : null;
  if (assignees) main += ` (assigned to ${assigneeList(assignees)})`;
  else if (pr.assignee) main += ` (assigned to ${pr.assignee})`;
  else if (pr.reviewer) main += ` (assigned reviewers: ${pr.reviewer})`;
  const punctuation = pr.message ? ":" : ".";
  if (assignees || pr.assignee || branches || title == null || !PUNCTUATION.includes(title.at(-1) ?? "")) {
    main += punctuation;
  }
  if (pr.message) main += `\n${quote(pr.message)}`;
  return main.trimEnd();
}

export const issueMessage = (issue: Omit<PullRequestMessage, "type" | "targetBranch" | "baseBranch">) =>
  pullRequestMessage({ ...issue, type: "issue" });

export function releaseMessage(
  userName: string,
  action: string,
  tagName: string,
  releaseName: string,
  url: string,
): string {
  return `${userName} ${action} release [${releaseName}](${url}) for tag ${tagName}.`;
}

/** Zulip's is_branch_name_notifiable: `branches` is a comma-separated allow-list. */
export const branchNotifiable = (branch: string, branches: string | undefined) =>
  branches === undefined ||
  branches
    .split(",")
    .map((b) => b.trim())
    .includes(branch);
