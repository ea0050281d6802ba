import unittest

from shop.billing import total_with_tax
from shop.reports import invoice_line


class ShopTest(unittest.TestCase):
    def test_total_includes_net_and_tax(self):
        self.assertEqual(total_with_tax(10), 12.0)

    def test_invoice_line(self):
        self.assertEqual(invoice_line("Book", 10), "Book: 12.00")


if __name__ == "__main__":
    unittest.main()
