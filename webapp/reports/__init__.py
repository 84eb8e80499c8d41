"""What an analysis reads as text: plain text and Markdown, the exports for tickets, stable finding
anchors."""
