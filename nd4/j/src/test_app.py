import unittest

from app import to_fahrenheit


class AppTest(unittest.TestCase):
    def test_boiling(self):
        self.assertEqual(to_fahrenheit(100), 212)


if __name__ == "__main__":
    unittest.main()
