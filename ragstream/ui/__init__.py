"""The workbench's panels, one module each; `ui_streamlit.py` lays them out. Panels draw what
the controller returns and hold no retrieval or prompt logic."""
