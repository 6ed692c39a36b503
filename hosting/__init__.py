"""The bot host: runs submitted bot versions, each in a bubblewrap sandbox with bounded
memory, CPU, processes, files and output, restarted when it crashes."""
