print("keepsake")
