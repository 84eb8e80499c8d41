"""What an analysis reads as text.

Plain text and Markdown, the exports for tickets, stable finding anchors."""
