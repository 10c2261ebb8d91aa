import { useState } from "preact/hooks";
import { client } from "../../app.js";
import { api } from "../../api/http.js";
import { useSave } from "./SaveState.js";

export function OrganizationProfile() {
  const realm = client.world.realm.value;
  const [name, setName] = useState(realm.name);
  const [description, setDescription] = useState(realm.description);
  const [save, saved] = useSave();
  return (
    <form
      class="form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(() => api("PATCH", "/realm", { name: name.trim(), description }));
      }}
    >
      <label for="org-name">Organization name</label>
      <input
        id="org-name"
        required
        maxLength={40}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="org-description">Organization description</label>
      <textarea
        id="org-description"
        rows={4}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <div class="form-buttons">
        <button type="submit" class="primary">
          Save changes
        </button>
      </div>
      {saved}
    </form>
  );
}

const ROLES: Array<[number, string]> = [
  [100, "Owner"],
  [200, "Administrator"],
  [300, "Moderator"],
  [400, "Member"],
  [600, "Guest"],
];

export function OrganizationUsers() {
  const users = [...client.world.users.value.values()]
    .filter((u) => !u.is_bot)
    .sort((a, b) => Number(b.is_active) - Number(a.is_active) || a.full_name.localeCompare(b.full_name));
  const [save, saved] = useSave();
  const amOwner = client.world.role.value === 100;
  return (
    <div class="settings-sections">
      <CreateUser />
      {saved}
      <table class="settings-table">
        <caption class="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.user_id} class={u.is_active ? undefined : "deactivated"}>
              <td>{u.full_name}</td>
              <td>{u.delivery_email ?? u.email}</td>
              <td>
                <select
                  aria-label={`Role of ${u.full_name}`}
                  value={String(u.role)}
                  disabled={!u.is_active || u.user_id === client.myUserId || (u.role === 100 && !amOwner)}
                  onChange={(e) =>
                    void save(
                      () => api("PATCH", `/users/${u.user_id}`, { role: Number(e.currentTarget.value) }),
                      `${u.full_name}'s role changed`,
                    )
                  }
                >
                  {ROLES.filter(([role]) => amOwner || role !== 100 || u.role === 100).map(
                    ([role, label]) => (
                      <option key={role} value={String(role)}>
                        {label}
                      </option>
                    ),
                  )}
                </select>
              </td>
              <td>
                {u.user_id !== client.myUserId &&
                  (u.is_active ? (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Deactivate ${u.full_name}`}
                      onClick={() => {
                        if (confirm(`Deactivate ${u.full_name}? They will be logged out at once.`)) {
                          void save(
                            () => api("DELETE", `/users/${u.user_id}`),
                            `${u.full_name} was deactivated`,
                          );
                        }
                      }}
                    >
                      Deactivate
                    </button>
                  ) : (
                    <button
                      type="button"
                      aria-label={`Reactivate ${u.full_name}`}
                      onClick={() =>
                        void save(
                          () => api("POST", `/users/${u.user_id}/reactivate`),
                          `${u.full_name} was reactivated`,
                        )
                      }
                    >
                      Reactivate
                    </button>
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function CreateUser() {
  const [email, setEmail] = useState("");
  const [fullName, setFullName] = useState("");
  const [password, setPassword] = useState("");
  const [save, saved] = useSave();
  return (
    <form
      class="form"
      aria-label="Add a user"
      onSubmit={(e) => {
        e.preventDefault();
        void save(async () => {
          await api("POST", "/users", { email: email.trim(), full_name: fullName.trim(), password });
          setEmail("");
          setFullName("");
          setPassword("");
        }, "User created");
      }}
    >
      <h3>Add a user</h3>
      <label for="new-user-email">New user's email</label>
      <input
        id="new-user-email"
        type="email"
        required
        value={email}
        onInput={(e) => setEmail(e.currentTarget.value)}
      />
      <label for="new-user-name">New user's name</label>
      <input
        id="new-user-name"
        required
        value={fullName}
        onInput={(e) => setFullName(e.currentTarget.value)}
      />
      <label for="new-user-password">Initial password</label>
      <input
        id="new-user-password"
        type="password"
        autocomplete="new-password"
        required
        value={password}
        onInput={(e) => setPassword(e.currentTarget.value)}
      />
      <div class="form-buttons">
        <button type="submit" class="primary">
          Create user
        </button>
      </div>
      {saved}
    </form>
  );
}

export function OrganizationChannels() {
  const channels = [...client.world.channels.value.values()].sort((a, b) => a.name.localeCompare(b.name));
  const [save, saved] = useSave();
  return (
    <div class="settings-sections">
      {saved}
      <table class="settings-table">
        <caption class="visually-hidden">Channels</caption>
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Access</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((c) => (
            <tr key={c.stream_id} class={c.is_archived ? "deactivated" : undefined}>
              <td>#{c.name}</td>
              <td>
                <select
                  aria-label={`Access to ${c.name}`}
                  value={c.invite_only ? "private" : "public"}
                  disabled={c.is_archived}
                  onChange={(e) =>
                    void save(
                      () =>
                        api("PATCH", `/streams/${c.stream_id}`, {
                          is_private: e.currentTarget.value === "private",
                        }),
                      `#${c.name} updated`,
                    )
                  }
                >
                  <option value="public">Public: anyone can join</option>
                  <option value="private">Private: by invitation</option>
                </select>
              </td>
              <td>
                {!c.is_archived && (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Archive ${c.name}`}
                    onClick={() => {
                      if (confirm(`Archive #${c.name}? Nobody can send messages to it anymore.`)) {
                        void save(() => api("DELETE", `/streams/${c.stream_id}`), `#${c.name} was archived`);
                      }
                    }}
                  >
                    Archive
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
