import { useState } from "preact/hooks";
import { follow } from "./follow.js";
import { client } from "../app.js";
import { PresenceDot, presenceOf } from "./Avatar.js";
import { UserStatus } from "./UserStatus.js";
import { openProfile } from "./ProfileCard.js";

const ORDER = { active: 0, idle: 1, offline: 2 } as const;

/** Everyone in the organization, the active first, with presence that follows their clients. */
export function UserList() {
  const [filter, setFilter] = useState("");
  const users = client.world.users.value;
  follow(client.world.presence);
  const statuses = client.world.statuses.value;
  const q = filter.trim().toLowerCase();
  const people = [...users.values()]
    .filter(
      (u) =>
        u.is_active &&
        !u.is_bot &&
        (q === "" || u.full_name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)),
    )
    .map((u) => ({ user: u, presence: presenceOf(u.user_id) }))
    .sort(
      (a, b) => ORDER[a.presence] - ORDER[b.presence] || a.user.full_name.localeCompare(b.user.full_name),
    );
  return (
    <aside class="right-sidebar" id="right-sidebar" aria-label="Users">
      <div class="side-heading">
        <h2>Users</h2>
      </div>
      <input
        class="user-filter"
        type="search"
        aria-label="Filter users"
        placeholder="Filter users"
        value={filter}
        onInput={(e) => setFilter(e.currentTarget.value)}
      />
      <ul class="user-list">
        {people.map(({ user }) => (
          <li key={user.user_id}>
            <button
              type="button"
              class="user-entry"
              aria-label={user.full_name}
              aria-describedby={`user-presence-${user.user_id} user-status-${user.user_id}`}
              onClick={() => openProfile(user.user_id)}
            >
              <PresenceDot userId={user.user_id} id={`user-presence-${user.user_id}`} />
              <span class="user-name">{user.full_name}</span>
              <UserStatus status={statuses.get(user.user_id)} id={`user-status-${user.user_id}`} />
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
