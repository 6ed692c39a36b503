"""Bot hosts: hosted bot versions in sandboxes, playing through a proxy to the referees."""
