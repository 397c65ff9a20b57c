from geometry import area as rectangle_area

def floor_size(rooms):
    return sum(rectangle_area(w, h) for w, h in rooms)

if __name__ == "__main__":
    floor_size([(3, 4), (2, 2)])
