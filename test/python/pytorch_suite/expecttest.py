"""Stand-in for PyPI's expecttest (not packaged by Debian), which torch's
common_utils imports for TestCase.assertExpectedInline; the distributed
tests run here do not use it."""
import unittest

ACCEPT = False  # common_utils sets it from --accept


class TestCase(unittest.TestCase):
    def assertExpectedInline(self, actual, expect, skip=0):  # noqa: N802
        self.assertEqual(actual.strip(), expect.strip())
