-- A small coffee shop: customers, products, orders and their items.
-- mcpdecl runs this once, in a transaction, the first time the database
-- "shop" is used (see init in ../shop.hcl). Prices are in euro cents.

CREATE TABLE customers (
  id         INTEGER PRIMARY KEY,
  email      TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  city       TEXT NOT NULL,
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE products (
  id          INTEGER PRIMARY KEY,
  sku         TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  category    TEXT NOT NULL,
  price_cents INTEGER NOT NULL CHECK (price_cents > 0),
  stock       INTEGER NOT NULL CHECK (stock >= 0)
);

CREATE TABLE orders (
  id          INTEGER PRIMARY KEY,
  customer_id INTEGER NOT NULL REFERENCES customers (id),
  ordered_at  TIMESTAMP NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled'))
);

CREATE TABLE order_items (
  order_id         INTEGER NOT NULL REFERENCES orders (id),
  product_id       INTEGER NOT NULL REFERENCES products (id),
  quantity         INTEGER NOT NULL CHECK (quantity > 0),
  unit_price_cents INTEGER NOT NULL,
  PRIMARY KEY (order_id, product_id)
);

CREATE INDEX orders_by_customer ON orders (customer_id, ordered_at);
CREATE INDEX items_by_product ON order_items (product_id);

INSERT INTO customers (id, email, name, city, created_at) VALUES
  (1, 'ada.lovelace@example.com', 'Ada Lovelace', 'London', '2024-04-08 10:13:00'),
  (2, 'grace.hopper@example.com', 'Grace Hopper', 'New York', '2024-07-15 11:26:00'),
  (3, 'alan.turing@example.com', 'Alan Turing', 'Manchester', '2024-10-22 12:39:00'),
  (4, 'margaret.hamilton@example.com', 'Margaret Hamilton', 'Boston', '2024-01-02 13:52:00'),
  (5, 'linus.t@example.org', 'Linus Torvalds', 'Portland', '2024-04-09 14:05:00'),
  (6, 'ken.thompson@example.net', 'Ken Thompson', 'Berkeley', '2024-07-16 15:18:00'),
  (7, 'barbara.liskov@example.com', 'Barbara Liskov', 'Cambridge', '2024-10-23 16:31:00'),
  (8, 'donald.knuth@example.org', 'Donald Knuth', 'Stanford', '2024-01-03 17:44:00'),
  (9, 'frances.allen@example.com', 'Frances Allen', 'Peru, NY', '2024-04-10 09:57:00'),
  (10, 'edsger.d@example.nl', 'Edsger Dijkstra', 'Eindhoven', '2024-07-17 10:10:00');

INSERT INTO products (id, sku, name, category, price_cents, stock) VALUES
  (1, 'MUG-001', 'Espresso mug, white', 'kitchen', 1200, 40),
  (2, 'MUG-002', 'Travel mug, steel', 'kitchen', 2450, 18),
  (3, 'KET-010', 'Gooseneck kettle', 'kitchen', 5900, 7),
  (4, 'GRD-020', 'Burr coffee grinder', 'kitchen', 8900, 5),
  (5, 'BEAN-101', 'Ethiopia Yirgacheffe, 250 g', 'coffee', 1450, 60),
  (6, 'BEAN-102', 'Colombia Huila, 250 g', 'coffee', 1300, 55),
  (7, 'BEAN-103', 'House espresso blend, 1 kg', 'coffee', 3800, 22),
  (8, 'TEA-201', 'Sencha green tea, 100 g', 'tea', 990, 30),
  (9, 'TEA-202', 'Earl Grey, 100 g', 'tea', 850, 0),
  (10, 'BOOK-301', 'The Art of Coffee (book)', 'books', 2900, 12),
  (11, 'FLT-401', 'Paper filters, 100 pack', 'accessories', 450, 120),
  (12, 'SCL-402', 'Pour-over scale', 'accessories', 3400, 9);

INSERT INTO orders (id, customer_id, ordered_at, status) VALUES
  (1, 1, '2025-01-05 14:41:00', 'delivered'),
  (2, 6, '2025-01-19 08:58:00', 'cancelled'),
  (3, 7, '2025-01-14 09:15:00', 'delivered'),
  (4, 10, '2025-02-02 17:37:00', 'shipped'),
  (5, 1, '2025-02-28 10:18:00', 'paid'),
  (6, 10, '2025-02-10 16:52:00', 'delivered'),
  (7, 4, '2025-02-12 09:35:00', 'delivered'),
  (8, 7, '2025-03-25 13:29:00', 'paid'),
  (9, 1, '2025-03-03 17:19:00', 'cancelled'),
  (10, 2, '2025-04-04 16:26:00', 'delivered'),
  (11, 2, '2025-04-25 16:36:00', 'shipped'),
  (12, 10, '2025-04-26 15:04:00', 'delivered'),
  (13, 5, '2025-05-21 17:43:00', 'paid'),
  (14, 1, '2025-05-15 13:10:00', 'delivered'),
  (15, 4, '2025-05-13 14:58:00', 'pending'),
  (16, 7, '2025-05-18 12:56:00', 'delivered'),
  (17, 6, '2025-06-22 14:14:00', 'delivered'),
  (18, 4, '2025-06-22 11:00:00', 'pending'),
  (19, 9, '2025-07-12 17:36:00', 'shipped'),
  (20, 1, '2025-07-21 18:47:00', 'delivered'),
  (21, 7, '2025-07-13 09:30:00', 'shipped'),
  (22, 4, '2025-08-15 10:07:00', 'shipped'),
  (23, 2, '2025-08-12 17:01:00', 'delivered'),
  (24, 3, '2025-08-21 12:22:00', 'shipped'),
  (25, 8, '2025-08-16 12:05:00', 'delivered'),
  (26, 5, '2025-09-16 21:44:00', 'delivered'),
  (27, 9, '2025-09-01 20:33:00', 'delivered'),
  (28, 4, '2025-10-18 16:49:00', 'cancelled'),
  (29, 4, '2025-10-27 14:47:00', 'delivered'),
  (30, 6, '2025-10-24 08:01:00', 'delivered'),
  (31, 6, '2025-11-15 20:59:00', 'pending'),
  (32, 8, '2025-11-07 13:13:00', 'delivered'),
  (33, 2, '2025-11-27 18:07:00', 'delivered'),
  (34, 2, '2025-11-26 19:25:00', 'delivered'),
  (35, 3, '2025-12-05 08:09:00', 'delivered'),
  (36, 3, '2025-12-18 16:08:00', 'paid');

INSERT INTO order_items (order_id, product_id, quantity, unit_price_cents) VALUES
  (1, 9, 1, 850),
  (2, 1, 1, 1200),
  (3, 7, 1, 3800),
  (3, 1, 1, 1200),
  (3, 10, 3, 2900),
  (4, 4, 1, 8900),
  (5, 9, 1, 850),
  (6, 10, 2, 2900),
  (7, 1, 2, 1200),
  (7, 10, 3, 2900),
  (7, 4, 2, 8900),
  (8, 5, 1, 1450),
  (8, 4, 3, 8900),
  (9, 6, 1, 1300),
  (9, 8, 2, 990),
  (10, 3, 2, 5900),
  (10, 8, 1, 990),
  (11, 12, 2, 3400),
  (11, 6, 2, 1300),
  (12, 8, 1, 990),
  (12, 11, 1, 450),
  (13, 12, 3, 3400),
  (13, 7, 1, 3800),
  (14, 1, 1, 1200),
  (14, 4, 1, 8900),
  (15, 3, 2, 5900),
  (16, 9, 3, 850),
  (16, 5, 2, 1450),
  (17, 3, 1, 5900),
  (18, 3, 1, 5900),
  (18, 5, 1, 1450),
  (18, 11, 2, 450),
  (19, 12, 2, 3400),
  (20, 11, 2, 450),
  (20, 9, 2, 850),
  (21, 4, 1, 8900),
  (22, 1, 2, 1200),
  (22, 2, 1, 2450),
  (22, 12, 2, 3400),
  (23, 10, 2, 2900),
  (24, 2, 2, 2450),
  (24, 12, 2, 3400),
  (25, 12, 1, 3400),
  (26, 1, 1, 1200),
  (26, 4, 1, 8900),
  (26, 9, 3, 850),
  (27, 2, 1, 2450),
  (27, 5, 1, 1500),
  (27, 9, 1, 850),
  (28, 11, 2, 450),
  (28, 4, 1, 8900),
  (29, 9, 2, 850),
  (30, 5, 3, 1500),
  (30, 4, 2, 8900),
  (31, 2, 1, 2450),
  (31, 4, 1, 8900),
  (32, 10, 3, 2900),
  (32, 1, 1, 1200),
  (32, 8, 3, 990),
  (33, 4, 2, 8900),
  (33, 8, 3, 990),
  (33, 3, 1, 5900),
  (34, 12, 3, 3400),
  (34, 2, 1, 2450),
  (35, 3, 2, 5900),
  (35, 10, 3, 2900),
  (35, 11, 1, 450),
  (36, 12, 3, 3400);
