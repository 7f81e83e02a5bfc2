"""Scale-out on Ray Data (``xlscore batch``); Ray is imported only when used."""
