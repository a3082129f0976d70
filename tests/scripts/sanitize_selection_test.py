"""The cover of scripts/sanitize_selection.py on small block maps: which tests it leaves out."""
import importlib.util
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "sanitize_selection", os.path.join(here, "..", "..", "scripts", "sanitize_selection.py"))
selection = importlib.util.module_from_spec(spec)
spec.loader.exec_module(selection)


def choose(blocks, cost=None, alone=()):
    cost = cost or {k: 100 for k in blocks}
    skipped, _, run = selection.choose({k: set(v) for k, v in blocks.items()}, cost, set(alone))
    return skipped, run


class CoverTest(unittest.TestCase):
    def test_a_test_whose_blocks_a_test_run_alone_runs_is_left_out(self):
        skipped, _ = choose({"etl:Walk": {1, 2, 3}, "etl:Small": {2, 3}}, alone={"etl:Walk"})
        self.assertEqual(skipped, ["etl:Small"])

    def test_a_test_with_a_block_no_other_runs_is_kept(self):
        skipped, _ = choose({"etl:Walk": {1, 2}, "etl:Error": {2, 9}}, alone={"etl:Walk"})
        self.assertEqual(skipped, [])

    def test_the_command_line_suite_is_kept_and_counts(self):
        skipped, _ = choose({"cli:Binary": {1, 2}, "raw:Fetch": {1}, "cli:Tiny": {}})
        self.assertEqual(skipped, ["raw:Fetch"])

    def test_a_property_seed_is_kept_but_covers_nothing(self):
        skipped, run = choose({"jobs:Seeds/Export.Case/0": {1, 2}, "jobs:Export.One": {1},
                               "jobs:Export.Two": {1, 2}})
        self.assertEqual(skipped, ["jobs:Export.One"])
        self.assertEqual(run, {1, 2})

    def test_the_costliest_of_a_redundant_cover_goes(self):
        # Cheap tests cover what the dear one covers between them: the dear one is left out.
        blocks = {"ops:Dear": {1, 2, 3, 4}, "ops:A": {1, 2}, "ops:B": {3, 4}}
        skipped, run = choose(blocks, {"ops:Dear": 5000, "ops:A": 10, "ops:B": 10})
        self.assertEqual(skipped, ["ops:Dear"])
        self.assertEqual(run, {1, 2, 3, 4})

    def test_every_block_any_test_runs_is_still_run(self):
        # Overlapping tests of every size: whatever is left out, the kept ones run every block.
        blocks = {f"raw:T{i}": {b for b in range(60) if b % (i + 2) == 0 or b == i}
                  for i in range(25)}
        cost = {k: 10 + 37 * i % 200 for i, k in enumerate(blocks)}
        skipped, run = choose(blocks, cost)
        self.assertEqual(run, set().union(*blocks.values()))
        self.assertTrue(skipped)
        for k in blocks:
            if k not in skipped:
                others = set().union(*(v for o, v in blocks.items() if o != k and o not in skipped))
                self.assertFalse(blocks[k] <= others, f"{k} is kept but redundant")


if __name__ == "__main__":
    sys.exit(unittest.main())
