/**
 * What a Zulip client does with events: apply them to its /register state. Tests use
 * it to check that register state + events == a fresh register (Zulip's verify_action).
 * Each feature adds its event types to APPLIERS.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type State = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Event = Record<string, any>;
export type Applier = (state: State, event: Event) => void;

function applyRealmUser(state: State, event: Event): void {
  const person = event.person as Event;
  const users = state.realm_users as Event[] | undefined;
  if (!users) return;
  switch (event.op) {
    case "add": {
      const copy = { ...person };
      delete copy.profile_data;
      delete copy.is_active;
      if (!users.some((u) => u.user_id === person.user_id)) users.push(copy);
      users.sort((a, b) => a.user_id - b.user_id);
      break;
    }
    case "remove": {
      const index = users.findIndex((u) => u.user_id === person.user_id);
      if (index >= 0) {
        const [removed] = users.splice(index, 1);
        state.realm_non_active_users.push(removed);
        state.realm_non_active_users.sort((a: Event, b: Event) => a.user_id - b.user_id);
      }
      break;
    }
    case "update": {
      const all = [...users, ...(state.realm_non_active_users as Event[])];
      const target = all.find((u) => u.user_id === person.user_id);
      if (!target) break;
      for (const [key, value] of Object.entries(person)) {
        if (key === "user_id" || key === "custom_profile_field") continue;
        if (key === "new_email") target.email = value;
        else target[key] = value;
      }
      if ("role" in person) {
        target.is_owner = person.role === 100;
        target.is_admin = person.role <= 200;
        target.is_guest = person.role === 600;
        if (state.user_id === person.user_id) {
          state.is_owner = target.is_owner;
          state.is_admin = target.is_admin;
          state.is_guest = target.is_guest;
          state.is_moderator = person.role === 300;
        }
      }
      if ("full_name" in person && state.user_id === person.user_id) state.full_name = person.full_name;
      break;
    }
  }
}

/**
 * Zulip's apply_event for user_group: the list stays sorted by ID, as do its ID lists.
 * An event about a group the client does not know (e.g. a deactivated group sent to a
 * client without include_deactivated_groups) is a server bug: it throws.
 */
function applyUserGroup(state: State, event: Event): void {
  const groups = state.realm_user_groups as Event[] | undefined;
  if (!groups) return;
  const byId = (a: number, b: number) => a - b;
  if (event.op === "add") {
    if (groups.some((g) => g.id === event.group.id)) throw new Error(`group ${event.group.id} added twice`);
    groups.push(structuredClone(event.group));
    groups.sort((a, b) => a.id - b.id);
    return;
  }
  const group = groups.find((g) => g.id === event.group_id);
  if (!group) throw new Error(`user_group ${String(event.op)} event for unknown group ${event.group_id}`);
  switch (event.op) {
    case "update":
      Object.assign(group, structuredClone(event.data));
      break;
    case "add_members":
      group.members = [...group.members, ...event.user_ids].sort(byId);
      break;
    case "remove_members":
      group.members = group.members.filter((id: number) => !event.user_ids.includes(id));
      break;
    case "add_subgroups":
      group.direct_subgroup_ids = [...group.direct_subgroup_ids, ...event.direct_subgroup_ids].sort(byId);
      break;
    case "remove_subgroups":
      group.direct_subgroup_ids = group.direct_subgroup_ids.filter(
        (id: number) => !event.direct_subgroup_ids.includes(id),
      );
      break;
    case "remove":
      state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      break;
    default:
      throw new Error(`unknown user_group op ${String(event.op)}`);
  }
}

export const APPLIERS: Record<string, Applier> = {
  heartbeat: () => undefined,
  realm_user: applyRealmUser,
  user_group: applyUserGroup,
};

export function applyEvents(state: State, events: Event[]): State {
  for (const event of events) {
    const applier = APPLIERS[event.type as string];
    if (!applier) throw new Error(`no applier for event type ${String(event.type)}`);
    applier(state, event);
  }
  return state;
}
