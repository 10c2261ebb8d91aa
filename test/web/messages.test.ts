import { expect } from "chai";
import { effect } from "@preact/signals-core";
import { ListCache, MessageList, MessageStore, mergeIds } from "../../src/web/model/messages.js";
import type { Narrow } from "../../src/web/model/narrow.js";
import { DESIGN, GENERAL, ME, OTHELLO, directMessage, streamMessage } from "./fixtures.js";

const GENERAL_NARROW: Narrow = [{ operator: "channel", operand: String(GENERAL) }];
const lunch = (id: number) => streamMessage(id, { topic: "lunch" });

/** A list of the general channel that has fetched `ids` and found the newest (and the oldest). */
function fetchedList(ids: number[], narrow: Narrow = GENERAL_NARROW): MessageList {
  const list = new MessageList(narrow, ME);
  list.addFetched(ids, { oldest: true, newest: true });
  return list;
}

describe("web client: message lists", function () {
  it("mergeIds merges two ascending lists into one, without repeats", function () {
    expect(mergeIds([1, 3, 5], [2, 3, 6])).to.deep.equal([1, 2, 3, 5, 6]);
    expect(mergeIds([], [9, 2, 2, 7])).to.deep.equal([2, 7, 9]);
    expect(mergeIds([4, 8], [])).to.deep.equal([4, 8]);
    expect(mergeIds([4, 8], [1, 10, 8])).to.deep.equal([1, 4, 8, 10]);
    expect(mergeIds([], [])).to.deep.equal([]);
  });

  describe("MessageList", function () {
    it("addFetched merges batches into one range and records what was found", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.addFetched([20, 21, 25], { oldest: false, newest: false });
      expect(list.ids.value).to.deep.equal([20, 21, 25]);
      expect([list.foundOldest.value, list.foundNewest.value]).to.deep.equal([false, false]);
      list.addFetched([10, 15, 20], { oldest: true });
      expect(list.ids.value).to.deep.equal([10, 15, 20, 21, 25]);
      expect([list.foundOldest.value, list.foundNewest.value]).to.deep.equal([true, false]);
      list.addFetched([25, 30], { newest: true });
      expect(list.ids.value).to.deep.equal([10, 15, 20, 21, 25, 30]);
      expect([list.foundOldest.value, list.foundNewest.value]).to.deep.equal([true, true]);
    });

    it("offer takes a matching new message only once the list reaches the newest", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.addFetched([10, 11], { oldest: true, newest: false });
      expect(list.offer(lunch(12))).to.equal(false);
      expect(list.ids.value).to.deep.equal([10, 11]);
      list.addFetched([12, 13], { newest: true });
      expect(list.offer(lunch(14))).to.equal(true);
      expect(list.offer(lunch(14))).to.equal(false);
      expect(list.offer(streamMessage(15, { streamId: DESIGN, channelName: "design" }))).to.equal(false);
      expect(list.offer(directMessage(16))).to.equal(false);
      expect(list.ids.value).to.deep.equal([10, 11, 12, 13, 14]);
    });

    it("messages arriving during a fetch join when the fetch finds the newest (arrivedDuringFetch)", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.loading.value = "initial";
      // Arrived while the fetch was under way: the answer may or may not include it.
      expect(list.offer(lunch(31))).to.equal(false);
      expect(list.offer(streamMessage(32, { streamId: DESIGN, channelName: "design" }))).to.equal(false);
      expect(list.ids.value).to.deep.equal([]);
      list.loading.value = null;
      list.addFetched([28, 29, 30], { oldest: true, newest: true });
      expect(list.ids.value).to.deep.equal([28, 29, 30, 31]);
      // The answer already had it: no repeat.
      const again = new MessageList(GENERAL_NARROW, ME);
      again.loading.value = "initial";
      again.offer(lunch(31));
      again.addFetched([30, 31], { oldest: true, newest: true });
      expect(again.ids.value).to.deep.equal([30, 31]);
    });

    it("messages arriving during a fetch that stops short of the newest wait for the fetch that finds it", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.loading.value = "initial";
      list.offer(lunch(50));
      list.addFetched([10, 11], { oldest: true, newest: false });
      // Not joined: the list does not reach message 50, which a later fetch brings.
      expect(list.ids.value).to.deep.equal([10, 11]);
      list.addFetched([12], { newest: true });
      expect(list.ids.value).to.deep.equal([10, 11, 12]);
    });

    it("a message deleted or moved away while the fetch was under way does not join with it", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.loading.value = "initial";
      list.offer(lunch(40));
      list.offer(lunch(41));
      list.remove(new Set([40]));
      list.recheck([streamMessage(41, { streamId: DESIGN, channelName: "design" })]);
      list.addFetched([39], { oldest: true, newest: true });
      expect(list.ids.value).to.deep.equal([39]);
    });

    it("reset forgets the range and the messages that arrived during a fetch", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      list.addFetched([1, 2], { oldest: true, newest: false });
      list.loading.value = "newer";
      list.offer(lunch(9));
      list.error.value = "boom";
      list.reset();
      expect(list.ids.value).to.deep.equal([]);
      expect([list.foundOldest.value, list.foundNewest.value]).to.deep.equal([false, false]);
      expect(list.loading.value).to.equal(null);
      expect(list.error.value).to.equal(null);
      // The new queue's first fetch: message 9 (from before) may be gone; it is not added.
      list.addFetched([5, 6], { oldest: true, newest: true });
      expect(list.ids.value).to.deep.equal([5, 6]);
    });

    it("remove takes messages out of the range", function () {
      const list = fetchedList([1, 2, 3, 4]);
      const before = list.ids.value;
      list.remove(new Set([9]));
      expect(list.ids.value).to.equal(before);
      list.remove(new Set([2, 4, 9]));
      expect(list.ids.value).to.deep.equal([1, 3]);
    });

    it("recheck drops messages moved out and adds messages moved in where the range covers them", function () {
      const list = new MessageList([...GENERAL_NARROW, { operator: "topic", operand: "lunch" }], ME);
      list.addFetched([10, 20, 30], { oldest: false, newest: true });
      list.recheck([
        streamMessage(20, { topic: "dinner" }),
        streamMessage(25, { topic: "LUNCH" }),
        // Before the fetched range (older messages not fetched yet): it will come with them.
        streamMessage(5, { topic: "lunch" }),
        streamMessage(40, { topic: "dinner" }),
      ]);
      expect(list.ids.value).to.deep.equal([10, 25, 30]);
      list.foundOldest.value = true;
      list.recheck([streamMessage(5, { topic: "lunch" })]);
      expect(list.ids.value).to.deep.equal([5, 10, 25, 30]);
    });

    it("covers says whether an ID falls within the fetched range", function () {
      const list = new MessageList(GENERAL_NARROW, ME);
      expect(list.covers(5)).to.equal(false);
      list.addFetched([], { oldest: true, newest: true });
      expect(list.covers(5)).to.equal(true);
      const middle = new MessageList(GENERAL_NARROW, ME);
      middle.addFetched([10, 20], { oldest: false, newest: false });
      expect([9, 10, 15, 20, 21].map((id) => middle.covers(id))).to.deep.equal([
        false,
        true,
        true,
        true,
        false,
      ]);
      middle.foundNewest.value = true;
      expect(middle.covers(1000)).to.equal(true);
      middle.foundOldest.value = true;
      expect(middle.covers(1)).to.equal(true);
    });

    it("search and has narrows are the server's: live and moved messages never join", function () {
      for (const narrow of [
        [{ operator: "search", operand: "lunch" }],
        [...GENERAL_NARROW, { operator: "has", operand: "link" }],
        [{ operator: "is", operand: "followed" }],
      ]) {
        const list = fetchedList([1], narrow);
        expect(list.serverOnly, JSON.stringify(narrow)).to.equal(true);
        expect(list.offer(lunch(2))).to.equal(false);
        list.recheck([lunch(3)]);
        expect(list.ids.value).to.deep.equal([1]);
      }
      expect(fetchedList([], [{ operator: "is", operand: "starred" }]).serverOnly).to.equal(false);
      expect(fetchedList([], [{ operator: "dm", operand: String(OTHELLO) }]).serverOnly).to.equal(false);
    });

    it("touch redraws the list when it holds one of the messages", function () {
      const list = fetchedList([1, 2]);
      let redraws = 0;
      const stop = effect(() => {
        void list.ids.value;
        redraws++;
      });
      list.touch([7]);
      expect(redraws).to.equal(1);
      list.touch([7, 2]);
      expect(redraws).to.equal(2);
      expect(list.ids.value).to.deep.equal([1, 2]);
      stop();
    });
  });

  describe("ListCache", function () {
    it("keeps one list per narrow, the most recently used, up to its limit", function () {
      const cache = new ListCache(2);
      const general = cache.get(GENERAL_NARROW, ME);
      expect(cache.get([{ operator: "channel", operand: String(GENERAL) }], ME)).to.equal(general);
      const design = cache.get([{ operator: "channel", operand: String(DESIGN) }], ME);
      // general used again: design is now the oldest and leaves when a third comes.
      cache.get(GENERAL_NARROW, ME);
      cache.get([{ operator: "is", operand: "starred" }], ME);
      expect([...cache.all()].map((l) => l.key)).to.deep.equal([
        general.key,
        JSON.stringify([["is", "starred"]]),
      ]);
      expect(cache.get([{ operator: "channel", operand: String(DESIGN) }], ME)).to.not.equal(design);
    });

    it("heldIds is every ID some list holds; clear drops the lists", function () {
      const cache = new ListCache();
      cache.get(GENERAL_NARROW, ME).addFetched([1, 2, 3], { oldest: true, newest: true });
      cache
        .get([{ operator: "is", operand: "starred" }], ME)
        .addFetched([3, 9], { oldest: true, newest: true });
      expect([...cache.heldIds()].sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 9]);
      cache.clear();
      expect([...cache.all()]).to.deep.equal([]);
    });
  });

  describe("MessageStore", function () {
    it("holds each message in its own signal, which a newer copy or an update replaces", function () {
      const store = new MessageStore();
      store.put([lunch(1), lunch(2)]);
      const held = store.get(1)!;
      let seen = 0;
      const stop = effect(() => {
        void held.value;
        seen++;
      });
      store.put([{ ...lunch(1), content: "<p>newer</p>" }]);
      expect(store.get(1)).to.equal(held);
      expect(store.value(1)!.content).to.equal("<p>newer</p>");
      store.update(1, (m) => ({ ...m, flags: ["read"] }));
      expect(store.value(1)!.flags).to.deep.equal(["read"]);
      expect(seen).to.equal(3);
      // Updating a message the store does not hold does nothing.
      store.update(99, (m) => ({ ...m, flags: ["read"] }));
      expect(store.value(99)).to.equal(undefined);
      stop();
    });

    it("delete, retainOnly and clear forget messages", function () {
      const store = new MessageStore();
      store.put([lunch(1), lunch(2), lunch(3), lunch(4)]);
      expect(store.size).to.equal(4);
      store.delete([2]);
      expect(store.get(2)).to.equal(undefined);
      store.retainOnly(new Set([1, 2, 4]));
      expect([1, 2, 3, 4].map((id) => store.value(id)?.id)).to.deep.equal([1, undefined, undefined, 4]);
      store.clear();
      expect(store.size).to.equal(0);
    });
  });
});
