"""Small widgets and cell formatters shared by the screens."""
