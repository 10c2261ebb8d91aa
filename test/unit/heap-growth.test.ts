import { expect } from "chai";
import { heapGrowthFlag, SERVING_HEAP_GROWING_PERCENT } from "../../src/cli/heap-growth.js";

describe("a serving process's heap growth factor", function () {
  it("is set to hold the old generation to 1.5 times its live size", function () {
    expect(SERVING_HEAP_GROWING_PERCENT).to.equal(50);
    expect(heapGrowthFlag([])).to.equal("--heap-growing-percent=50");
    expect(heapGrowthFlag(["--enable-source-maps", "--max-old-space-size=512"])).to.equal(
      "--heap-growing-percent=50",
    );
  });

  it("is left alone when the operator chose one on node's command line, in either spelling", function () {
    expect(heapGrowthFlag(["--heap-growing-percent=0"])).to.equal(null);
    expect(heapGrowthFlag(["--heap_growing_percent=80"])).to.equal(null);
  });
});
