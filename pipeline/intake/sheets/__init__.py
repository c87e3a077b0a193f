"""Reading score sheets: files → raw sheets of text cells with their spreadsheet row numbers."""
