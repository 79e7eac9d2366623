"""What the search views show, without pygame: the overlay's history and heat map, the
inspector's panel data, the strategy comparison, colourings of fields."""
