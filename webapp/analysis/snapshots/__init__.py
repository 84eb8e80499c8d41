"""A call's snapshots as the analysis reads them.

Their JSON documents and the forms a result is logged in."""
