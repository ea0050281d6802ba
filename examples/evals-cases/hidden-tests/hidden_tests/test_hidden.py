import unittest

from calc import add


class TestHidden(unittest.TestCase):
    def test_more_sums(self):
        self.assertEqual(add(2, 5), 7)
        self.assertEqual(add(-1, 1), 0)
