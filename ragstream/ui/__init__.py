"""The workbench's panels, one module each; `ui_streamlit.py` lays them out. Panels draw what
the controller returns and hold no retrieval or prompt logic."""

# How `ragstream ui` tells the Streamlit process what to open (Streamlit owns its argv).
CONFIG_ENV = "RAGSTREAM_CONFIG"  # a settings file, as `ragstream --config FILE ui` names it
BUILD_DEFAULT_ENV = "RAGSTREAM_BUILD_DEFAULT"  # "1": build or update the bundled default index
# "PID:FILE": the launcher already started that build (pid PID, its events in FILE): follow it
DEFAULT_BUILD_ENV = "RAGSTREAM_DEFAULT_BUILD"
