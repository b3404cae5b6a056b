"""The Overview tab: the owner's report inside the app (tables and interactive plots)."""
