"""History across events: player identities, statistics and ratings for associations."""
