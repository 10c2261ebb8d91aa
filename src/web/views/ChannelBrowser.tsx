import { effect } from "@preact/signals";
import { useState } from "preact/hooks";
import type { Channel } from "../api/types.js";
import { client } from "../app.js";
import { subscribe, unsubscribe } from "../actions.js";
import { navigate } from "../router.js";
import { channelHash } from "./LeftSidebar.js";
import { Icon } from "./Icon.js";
import { showToast } from "./Toast.js";

/** Every channel the person may see: join or leave each, or create one. */
export function ChannelBrowser() {
  const [creating, setCreating] = useState(false);
  const channels = [...client.world.channels.value.values()]
    .filter((c) => !c.is_archived)
    .sort((a, b) => a.name.localeCompare(b.name));
  const subs = client.world.subscriptions.value;
  return (
    <section class="list-view" aria-labelledby="channels-title">
      <div class="view-header">
        <h1 id="channels-title">Channels</h1>
        <button type="button" class="primary" onClick={() => setCreating(!creating)} aria-expanded={creating}>
          <Icon name="plus" size={16} /> Create a channel
        </button>
      </div>
      <div class="list-scroll">
        {creating && <CreateChannel onDone={() => setCreating(false)} />}
        <ul class="channel-browser" aria-label="All channels">
          {channels.map((channel) => {
            const subscribed = subs.has(channel.stream_id);
            return (
              <li key={channel.stream_id} class="channel-row">
                <div>
                  <a href={channelHash(channel.stream_id, channel.name)} class="channel-row-name">
                    <Icon name={channel.invite_only ? "lock" : "hash"} size={14} /> {channel.name}
                  </a>
                  {channel.rendered_description && (
                    <div
                      class="channel-row-description"
                      dangerouslySetInnerHTML={{ __html: channel.rendered_description }}
                    />
                  )}
                </div>
                <button
                  type="button"
                  class={subscribed ? "" : "primary"}
                  aria-label={`${subscribed ? "Unsubscribe from" : "Subscribe to"} ${channel.name}`}
                  onClick={() =>
                    void (subscribed ? unsubscribe([channel.name]) : subscribe([channel.name])).catch(
                      (err: Error) => showToast(err.message),
                    )
                  }
                >
                  {subscribed ? "Unsubscribe" : "Subscribe"}
                </button>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}

/** The channel of this name once the subscription's event made it known (null after 10 s). */
function subscribedChannel(name: string): Promise<Channel | null> {
  return new Promise((resolve) => {
    let done = false;
    let stop = () => {};
    const finish = (channel: Channel | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      queueMicrotask(() => stop());
      resolve(channel);
    };
    const timer = setTimeout(() => finish(null), 10_000);
    stop = effect(() => {
      const channel = client.world.channelByName(name);
      if (channel && client.world.subscriptions.value.has(channel.stream_id)) finish(channel);
    });
  });
}

function CreateChannel({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [privateChannel, setPrivate] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const create = async () => {
    const wanted = name.trim();
    // Subscribing by name joins a channel that exists: say so instead.
    if (client.world.channelByName(wanted)) {
      setError(`A channel named ${wanted} already exists.`);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await subscribe([wanted], { description, invite_only: privateChannel });
      onDone();
      const channel = await subscribedChannel(wanted);
      if (channel) navigate(channelHash(channel.stream_id, channel.name));
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="form create-channel"
      aria-label="Create a channel"
      onSubmit={(e) => {
        e.preventDefault();
        void create();
      }}
    >
      <label for="new-channel-name">Channel name</label>
      <input
        id="new-channel-name"
        required
        maxLength={60}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <label for="new-channel-description">Description</label>
      <input
        id="new-channel-description"
        maxLength={1024}
        value={description}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <label class="checkbox">
        <input
          type="checkbox"
          checked={privateChannel}
          onChange={(e) => setPrivate(e.currentTarget.checked)}
        />{" "}
        Private: only people added can see it
      </label>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="form-buttons">
        <button type="submit" class="primary" disabled={busy || name.trim() === ""}>
          Create
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
