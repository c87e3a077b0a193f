"""The Streamlit dashboard: public pages (live, pairings) and the organizer console."""
