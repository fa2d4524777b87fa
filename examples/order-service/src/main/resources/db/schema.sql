-- The schema spring.datasource.url's currentSchema names; db/tables.sql then creates the tables in it.
CREATE SCHEMA IF NOT EXISTS order_service;
