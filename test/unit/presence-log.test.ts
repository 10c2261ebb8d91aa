import { expect } from "chai";
import { PresenceChangeLog } from "../../src/cache/presence-log.js";

describe("presence change log", function () {
  it("tells who changed after an update, with numbers skipped between changes", function () {
    const log = new PresenceChangeLog(10);
    log.add(12, 1);
    log.add(15, 2);
    log.add(16, 1);
    expect(log.since(10, 16)).to.deep.equal([1, 2, 1]);
    expect(log.since(11, 16)).to.deep.equal([1, 2, 1]);
    expect(log.since(12, 16)).to.deep.equal([2, 1]);
    expect(log.since(14, 16)).to.deep.equal([2, 1]);
    expect(log.since(16, 16)).to.deep.equal([]);
    // Before what it holds, or after the newest update: it cannot tell.
    expect(log.since(9, 16)).to.equal(null);
    expect(log.since(17, 16)).to.equal(null);
  });

  it("forgets the older half past 10,000 changes, and says so", function () {
    const log = new PresenceChangeLog(0);
    for (let id = 1; id <= 10_001; id++) log.add(id * 2, id);
    // 5,001 dropped: it holds the changes after update 10,002.
    expect(log.since(10_001, 20_002)).to.equal(null);
    expect(log.since(10_002, 20_002)).to.have.length(5_000);
    expect(log.since(20_000, 20_002)).to.deep.equal([10_001]);
  });
});
