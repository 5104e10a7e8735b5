# bucket() fill (fill.sh): serverless = one dserver = three, against DuckDB.
dtail_e2e(fill_series fill series TIMEOUT 180)
dtail_e2e(fill_zone fill zone TIMEOUT 120)
dtail_e2e(fill_errors fill errors TIMEOUT 60)
