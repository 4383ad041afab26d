"""Translation methods: the protocol they implement, their manifest, and how they are loaded."""
