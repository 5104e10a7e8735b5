# json(FIELD).path (jsonpath.sh): serverless = one dserver = three, against DuckDB.
dtail_e2e(jsonpath_oracle jsonpath oracle TIMEOUT 180)
dtail_e2e(jsonpath_errors jsonpath errors TIMEOUT 60)
